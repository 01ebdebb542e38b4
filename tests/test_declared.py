"""A doc sentence found only in a TypeScript declaration file stands for the code it declares
(:mod:`search.engine.retrievers.declared`): commander ships ``typings/index.d.ts`` with its JSDoc
repeated, and where the code's own comment is gone the sentence is found in the declarations alone."""

from __future__ import annotations

import pytest

from search import Query, Scope
from search.engine.retrievers.declared import declared_name

DECLARATIONS = """\
export class Command {
  /**
   * Allow unknown options on the command line.
   *
   * @returns `this` command for chaining
   */
  allowUnknownOption(allowUnknown?: boolean): this;

  /** Name of the command. */
  readonly name: string;
}

/**
 * Create a new command: the factory of the package.
 */
export declare function createCommand(name?: string): Command;

// a comment about nothing that follows
"""


@pytest.mark.parametrize(
    ("line", "name"),
    [
        (3, "allowUnknownOption"),  # a JSDoc line: the method signature under the comment
        (5, "allowUnknownOption"),
        (9, "name"),  # a one-line comment over a property
        (14, "createCommand"),  # modifiers before the name are skipped
        (7, None),  # the declaration itself is no comment
        (1, None),
        (19, None),  # nothing declared under it
        (99, None),
    ],
)
def test_the_name_declared_under_a_doc_comment(line: int, name: str | None) -> None:
    assert declared_name(DECLARATIONS.splitlines(), line) == name


# JSDoc written as plain lines between ``/**`` and ``*/`` (p-queue's style), with an example in it
BARE = """\
export default class PQueue {
\t/**
\tPut queue execution on hold.

\t@example
\t```
\tqueue.add(() => delay(100));
\t```
\t*/
\tpause(): void;

\tstart(): this; /* Start (or resume) executing. */

\t/** Whether the queue is paused. */ readonly isPaused: boolean;
}
\tNot a comment: code below a closed block.
declare function never(): void;
"""


@pytest.mark.parametrize(
    ("line", "name"),
    [
        (3, "pause"),  # a plain line of a block comment: the declaration after its `*/`
        (7, "pause"),  # the example's code is inside the comment, not what it declares
        (10, None),  # the declaration itself
        (12, None),  # a trailing comment declares nothing below it (the line is code)
        (14, "isPaused"),  # a one-line block, the declaration after it on its line
        (16, None),  # below a `*/` that closed the last comment
    ],
)
def test_the_name_declared_under_a_block_comment_of_plain_lines(line: int, name: str | None) -> None:
    assert declared_name(BARE.splitlines(), line) == name


CODE = """\
class Command {
  constructor() {
    this._allowUnknownOption = false;
  }

  allowUnknownOption(allowUnknown = true) {
    this._allowUnknownOption = !!allowUnknown;
    return this;
  }
}

function createCommand(name) {
  return new Command(name);
}

module.exports = { Command, createCommand };
"""

OTHER = """\
class Parser {
  allowUnknownOption(flag) {
    return flag;
  }
}

module.exports = { Parser };
"""


def test_a_sentence_found_only_in_declarations_puts_the_declared_code_first(indexed_engine) -> None:
    engine = indexed_engine(
        {"lib/command.js": CODE, "lib/parser.js": OTHER, "typings/index.d.ts": DECLARATIONS}
    )
    results = engine.search(Query("Allow unknown options on the command line.", explain=True)).results
    top, second = results[0], results[1]
    # Command's method, not Parser's of the same name: the declaration's class is its owner
    assert top.path == "lib/command.js" and top.start_line <= 6 <= top.end_line
    assert {"rule": "phrase", "effect": "first"} in top.explain["rules"]
    assert second.path == "typings/index.d.ts"
    assert {"rule": "phrase", "effect": "after the code (a declaration)"} in second.explain["rules"]
    # A function outside any class: the only definition of its name
    made = engine.search(Query("Create a new command: the factory of the package.")).results
    assert made[0].path == "lib/command.js" and made[0].start_line <= 12 <= made[0].end_line
    # Scoped to the declarations, the code is not offered
    sentence = Query("Allow unknown options on the command line.")
    scoped = engine.search(sentence, Scope(kind="dir", path="typings")).results
    assert {r.path for r in scoped} == {"typings/index.d.ts"}


def test_a_name_several_classes_define_is_not_guessed_without_its_owner(indexed_engine) -> None:
    loose = DECLARATIONS.replace("export class Command {", "export interface Options {")
    engine = indexed_engine({"lib/command.js": CODE, "lib/parser.js": OTHER, "typings/index.d.ts": loose})
    text = engine.rankings("Allow unknown options on the command line.")["text"]
    places = [h.span.path for h in text if h.exact]
    assert places == ["typings/index.d.ts"]  # two classes define it, neither is the declaration's owner


def test_a_failed_lookup_leaves_the_text_retrievers_answer(indexed_engine, monkeypatch) -> None:
    from indexer import Index, IndexStoreError

    engine = indexed_engine({"lib/command.js": CODE, "typings/index.d.ts": DECLARATIONS})

    def broken(self: Index, path: str) -> list[object]:
        raise IndexStoreError("the symbols table cannot be read")

    monkeypatch.setattr(Index, "symbols_in_file", broken)
    response = engine.search(Query("Allow unknown options on the command line."))
    assert "text" not in response.degraded  # the declaration's own place still answers
    assert any(r.path == "typings/index.d.ts" for r in response.results)


QUEUE = """\
export default class PQueue {
  start() {
    this.paused = false;
    return this;
  }

  pause() {
    this.paused = true;
  }
}
"""


def test_a_sentence_of_a_plain_lined_block_comment_puts_the_declared_method_first(indexed_engine) -> None:
    engine = indexed_engine({"dist/index.js": QUEUE, "dist/index.d.ts": BARE})
    results = engine.search(Query("Put queue execution on hold.", explain=True)).results
    top = results[0]
    assert top.path == "dist/index.js" and top.start_line <= 7 <= top.end_line
    assert {"rule": "phrase", "effect": "first"} in top.explain["rules"]
    assert results[1].path == "dist/index.d.ts"
