"""A real S3-compatible server for the object-storage tests: moto in server mode on 127.0.0.1.

:func:`start_s3` starts moto's threaded server on a free loopback port, turns on its authentication
(so wrong credentials are refused as AWS would refuse them), creates an IAM user with an access key
allowed everything, and a bucket. :class:`S3` carries what a client needs: the endpoint, the keys and
the standard ``AWS_*`` variables that LanceDB and obstore read.
"""

from __future__ import annotations

import json
import logging
import urllib.request
from dataclasses import dataclass

POLICY = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
REGION = "us-east-1"
SETUP_ACTIONS = 4  # create user, access key, user policy, bucket: unauthenticated, then auth is on


@dataclass
class S3:
    server: object
    endpoint: str
    bucket: str
    key_id: str
    secret: str

    def env(self, **overrides: str) -> dict[str, str]:
        """The standard variables a client of this server needs (``overrides`` win)."""
        values = {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ENDPOINT": self.endpoint,
            "AWS_ACCESS_KEY_ID": self.key_id,
            "AWS_SECRET_ACCESS_KEY": self.secret,
            "AWS_REGION": REGION,
            "AWS_DEFAULT_REGION": REGION,
            "AWS_ALLOW_HTTP": "true",
        }
        values.update(overrides)
        return values

    def stop(self) -> None:
        self.server.stop()  # type: ignore[attr-defined]


def start_s3(bucket: str = "team") -> S3:
    import boto3
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    _, port = server.get_host_and_port()
    endpoint = f"http://127.0.0.1:{port}"
    # moto's backends live in this process, shared by every server a test session starts: clear what
    # an earlier module's server left (its user, its buckets) before setting this one up.
    with urllib.request.urlopen(
        urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST"), timeout=30
    ):
        pass
    request = urllib.request.Request(
        f"{endpoint}/moto-api/reset-auth",
        data=str(SETUP_ACTIONS).encode(),
        headers={"Content-Type": "text/plain"},  # a form body would be parsed away
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert json.load(response)["status"] == "ok"
    setup = {"endpoint_url": endpoint, "region_name": REGION}
    setup_keys = {"aws_access_key_id": "setup", "aws_secret_access_key": "setup"}
    iam = boto3.client("iam", **setup, **setup_keys)
    iam.create_user(UserName="plait-ci")
    key = iam.create_access_key(UserName="plait-ci")["AccessKey"]
    iam.put_user_policy(UserName="plait-ci", PolicyName="all", PolicyDocument=json.dumps(POLICY))
    s3 = boto3.client(
        "s3", **setup, aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"]
    )
    s3.create_bucket(Bucket=bucket)
    return S3(server, endpoint, bucket, key["AccessKeyId"], key["SecretAccessKey"])
