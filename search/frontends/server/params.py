"""Parameter types shared by several tools (their descriptions are the tools' schema)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

Globs = Annotated[
    list[str] | str | None,
    Field(
        description="Only files matching these gitignore-style globs ('*.py', 'src/**'); '!glob' excludes."
    ),
]
Language = Annotated[
    str | None,
    Field(description="Only files of this language (python, go, typescript, tsx, rust, java, c, cpp, ...)."),
]
Repos = Annotated[
    list[str] | str | None,
    Field(
        description="Only these repositories, by short name (the `repo` of results) or root path; "
        "default: every root this server serves, ranked together."
    ),
]
