"""A data member (a struct's field, a class attribute, an enum's variant) or a file's variable is found
by its name: the chunk that declares it first, for the bare name and for ``Owner.name``. It is not what
a sentence's words or a name in another case ask for, and a file named after the name stays its
module."""

from __future__ import annotations

import pytest

from search import Engine, Query
from search.engine.query import definition_request

CLIENT = '''class Client:
    """Talks to the server."""

    def __init__(self, base_url, max_redirects=20):
        self.base_url = base_url
        self.max_redirects = max_redirects
        self.tokenizer = None

    def get(self, path):
        """Fetch a path, following redirects."""
        return self.send(path, limit=self.max_redirects)
'''
SEND = "\n".join(  # the name more often here than where it is declared
    f"def helper_{i}(client, n):\n    if n > client.max_redirects:\n        n = client.max_redirects\n"
    f"    return client.max_redirects - n + {i}\n"
    for i in range(4)
)
USE_STORE = "\n".join(
    f"fn grow_{i}(store: &mut Store) {{\n    if store.capacity < {i} {{\n        store.capacity = store.capacity * 2;\n    }}\n}}\n"
    for i in range(4)
)
STORE = """pub struct Store {
    /// Entries kept before the oldest is dropped.
    pub capacity: usize,
    items: Vec<u8>,
}

pub enum Event {
    Evicted,
    Inserted(u8),
}
"""
COMMAND = """package cli

type Command struct {
\tUse  string
\tArgs PositionalArgs
}
"""
ARGS = """package cli

type PositionalArgs func(cmd *Command, args []string) error

func NoArgs(cmd *Command, args []string) error { return nil }

func ExactArgs(n int) PositionalArgs { return nil }
"""
TOKENIZER = '''class WordTokenizer:
    """Splits text into words."""

    def split(self, text):
        return text.split()
'''
ERRORS = """package cli

// ErrClosed is returned by a command run after Close.
var ErrClosed = errors.New("closed")
"""
RUN = "package cli\n\n" + "\n".join(
    f"func run{i}(c *Command) error {{\n\tif c.closed {{\n\t\treturn ErrClosed\n\t}}\n\treturn nil\n}}\n"
    for i in range(4)
)
FILES = {
    "src/client.py": CLIENT,
    "src/send.py": SEND,
    "src/store.rs": STORE,
    "src/grow.rs": USE_STORE,
    "cli/command.go": COMMAND,
    "cli/args.go": ARGS,
    "src/tokenizer.py": TOKENIZER,
    "cli/errors.go": ERRORS,
    "cli/run.go": RUN,
}


@pytest.fixture
def engine(indexed_engine):
    return indexed_engine(FILES)


def _first(engine: Engine, text: str) -> tuple[str, int, int]:
    top = engine.search(Query(text)).results[0]
    return top.path, top.start_line, top.end_line


@pytest.mark.parametrize(
    ("text", "path", "line"),
    [
        ("max_redirects", "src/client.py", 6),  # set in __init__, used in four other places
        ("Client.max_redirects", "src/client.py", 6),
        ("capacity", "src/store.rs", 3),
        ("Store.capacity", "src/store.rs", 3),
        ("Evicted", "src/store.rs", 8),
        ("Event::Evicted", "src/store.rs", 8),
        ("ErrClosed", "cli/errors.go", 4),  # a package's variable, returned in four places
    ],
)
def test_a_member_is_found_where_it_is_declared(engine: Engine, text: str, path: str, line: int) -> None:
    got_path, start, end = _first(engine, text)
    assert (got_path, start <= line <= end) == (path, True)


def test_the_symbol_index_names_members_by_their_owner(engine: Engine) -> None:
    redirects, evicted = engine.index.lookup_many([("max_redirects", True), ("Evicted", True)])
    assert {m.symbol.qualified_name: m.symbol.kind for m in redirects} == {"Client.max_redirects": "field"}
    assert {(m.symbol.qualified_name, m.symbol.kind) for m in evicted} == {("Event.Evicted", "variant")}


def test_a_name_that_is_also_a_file_is_that_file_first(engine: Engine) -> None:
    # cobra's `Args`: the field Command.Args, and args.go, where the positional-argument checks live
    assert _first(engine, "Args")[0] == "cli/args.go"


def test_a_member_is_no_match_in_another_case(engine: Engine) -> None:
    hits = engine.rankings("Tokenizer")["symbol"]
    assert hits and all(h.kind not in ("field", "variant") for h in hits)
    assert _first(engine, "Tokenizer")[0] == "src/tokenizer.py"


def test_a_sentence_does_not_look_members_up(engine: Engine) -> None:
    for text in ("how are redirects limited by max_redirects", "the store capacity of entries"):
        assert all(h.kind not in ("field", "variant") for h in engine.rankings(text)["symbol"]), text


def test_a_message_that_opens_with_field_is_no_request() -> None:
    # gson's "Field 'com.google.gson.Foo$Bar#i'": a message, searched as the phrase it is
    assert definition_request("Field 'com.google.gson.Foo$Bar#i'") is None


def test_two_words_that_spell_a_member_stay_words(engine: Engine) -> None:
    # "follow redirects" is a topic, where two words spelling a function (`bind contextvars`) are its name
    assert engine.analyse("max redirects", index=engine.index).shape == "natural"
    assert engine.analyse("word tokenizer", index=engine.index).text == "WordTokenizer"  # a class: its name
