"""Per-file facts for the evaluation set: definitions, their doc comments, and string literals.

This walks tree-sitter trees (``tree_sitter_language_pack``) itself instead of reusing plait's
symbol extractor on purpose: the ground truth of a benchmark must not come from the system under
test, or plait's own span conventions would be rewarded for free.

A *doc* is a Python docstring (the first statement of a function body) or the doc comment right
above a definition (no blank line between): ``/** ... */`` (JS/TS JSDoc, Java, PHP, Kotlin,
Scala, C/C++), ``///`` (Rust, C#, Swift, C/C++), ``//`` (Go, whose doc comments are plain line
comments), ``#`` (Ruby). Attributes and decorators between the doc and the definition are allowed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

EXTRACTOR_VERSION = 2  # 2: data members


@dataclass(frozen=True, slots=True)
class LangSpec:
    """How to find definitions, docs and string literals in one tree-sitter grammar."""

    functions: frozenset[str]  # function-like definition nodes (docstring and literal targets)
    classes: frozenset[str] = frozenset()  # other named definitions (symbol targets, scopes)
    doc_prefixes: tuple[str, ...] = ("/**",)  # comment openers that make a doc comment
    strings: frozenset[str] = frozenset({"string", "string_literal"})
    skip_between: frozenset[str] = frozenset()  # nodes allowed between a doc comment and its definition
    python_docstrings: bool = False
    # data members: these nodes, named, inside one of ``owners`` (``classes`` when empty) and no function
    members: frozenset[str] = frozenset()
    owners: frozenset[str] = frozenset()


_C_LIKE_STRINGS = frozenset({"string_literal"})
_JS = LangSpec(
    functions=frozenset(
        {"function_declaration", "generator_function_declaration", "method_definition", "variable_declarator"}
    ),
    classes=frozenset(
        {
            "class_declaration",
            "abstract_class_declaration",
            "interface_declaration",
            "type_alias_declaration",
            "enum_declaration",
        }
    ),
    strings=frozenset({"string"}),
    members=frozenset({"public_field_definition", "property_signature"}),
)

SPECS: dict[str, LangSpec] = {
    "python": LangSpec(
        functions=frozenset({"function_definition"}),
        classes=frozenset({"class_definition"}),
        strings=frozenset({"string"}),
        python_docstrings=True,
        members=frozenset({"assignment"}),  # `x: int = 0` in a class body (``self.x`` has no plain name)
    ),
    "javascript": _JS,
    "typescript": _JS,
    "tsx": _JS,
    "go": LangSpec(
        functions=frozenset({"function_declaration", "method_declaration"}),
        classes=frozenset({"type_spec"}),
        doc_prefixes=("//", "/*"),
        strings=frozenset({"interpreted_string_literal", "raw_string_literal"}),
        members=frozenset({"field_declaration"}),
    ),
    "rust": LangSpec(
        functions=frozenset({"function_item"}),
        classes=frozenset({"struct_item", "enum_item", "trait_item", "type_item", "mod_item"}),
        doc_prefixes=("///", "/**"),
        strings=_C_LIKE_STRINGS,
        skip_between=frozenset({"attribute_item"}),
        members=frozenset({"field_declaration", "enum_variant"}),
    ),
    "java": LangSpec(
        functions=frozenset({"method_declaration", "constructor_declaration"}),
        classes=frozenset(
            {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}
        ),
        strings=_C_LIKE_STRINGS,
        members=frozenset({"field_declaration", "enum_constant"}),
    ),
    "c": LangSpec(
        functions=frozenset({"function_definition"}),
        doc_prefixes=("/**", "///"),
        strings=_C_LIKE_STRINGS,
        members=frozenset({"field_declaration", "enumerator"}),
        owners=frozenset({"struct_specifier", "union_specifier", "enum_specifier"}),
    ),
    "cpp": LangSpec(
        functions=frozenset({"function_definition"}),
        classes=frozenset({"class_specifier", "struct_specifier"}),
        doc_prefixes=("/**", "///"),
        strings=_C_LIKE_STRINGS,
        members=frozenset({"field_declaration", "enumerator"}),
        owners=frozenset({"class_specifier", "struct_specifier", "union_specifier", "enum_specifier"}),
    ),
    "csharp": LangSpec(
        functions=frozenset({"method_declaration", "constructor_declaration"}),
        classes=frozenset({"class_declaration", "interface_declaration", "struct_declaration"}),
        doc_prefixes=("///", "/**"),
        strings=frozenset({"string_literal"}),
        members=frozenset({"property_declaration"}),
    ),
    "ruby": LangSpec(
        functions=frozenset({"method", "singleton_method"}),
        classes=frozenset({"class", "module"}),
        doc_prefixes=("#",),
        strings=frozenset({"string"}),
    ),
    "php": LangSpec(
        functions=frozenset({"function_definition", "method_declaration"}),
        classes=frozenset({"class_declaration", "interface_declaration", "trait_declaration"}),
        strings=frozenset({"string", "encapsed_string"}),
    ),
    "kotlin": LangSpec(
        functions=frozenset({"function_declaration"}),
        classes=frozenset({"class_declaration", "object_declaration"}),
        strings=frozenset({"string_literal"}),
    ),
    "swift": LangSpec(
        functions=frozenset({"function_declaration"}),
        classes=frozenset({"class_declaration", "protocol_declaration"}),
        doc_prefixes=("///", "/**"),
        strings=frozenset({"line_string_literal"}),
    ),
    "scala": LangSpec(
        functions=frozenset({"function_definition"}),
        classes=frozenset({"class_definition", "object_definition", "trait_definition"}),
        strings=frozenset({"string"}),
    ),
}

# Wrappers whose preceding comment documents the definition inside them.
_WRAPPERS = frozenset(
    {"export_statement", "lexical_declaration", "variable_declaration", "decorated_definition"}
)
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_NAME_TYPES = frozenset(
    {"identifier", "field_identifier", "property_identifier", "private_property_identifier",
     "simple_identifier", "name", "type_identifier"}
)  # fmt: skip
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")
_STRING_RE = re.compile(r'^[A-Za-z]{0,3}("""|\'\'\'|"|\'|`)(.*)\1$', re.DOTALL)


@dataclass(frozen=True, slots=True)
class Doc:
    """A docstring or doc comment: its byte range in the file and its cleaned text."""

    start_byte: int
    end_byte: int
    text: str
    python: bool  # a Python docstring (blanked to ``""`` so the body stays valid)


@dataclass(frozen=True, slots=True)
class Definition:
    name: str
    qualified_name: str
    kind: str  # "function" (functions and methods) or "type" (classes, structs, ...)
    start_line: int  # 1-based, inclusive
    end_line: int
    doc: Doc | None


@dataclass(frozen=True, slots=True)
class StringLiteral:
    text: str  # the literal's content without quotes
    start_byte: int
    line: int
    definition: int  # index into FileFacts.definitions of the enclosing function


@dataclass(frozen=True, slots=True)
class Member:
    """A data member: a field, a class attribute, a property, an enum's variant."""

    name: str
    qualified_name: str
    start_line: int  # 1-based, inclusive: the declaration, without its doc comment
    end_line: int


@dataclass(frozen=True, slots=True)
class FileFacts:
    path: str
    language: str
    definitions: tuple[Definition, ...]
    literals: tuple[StringLiteral, ...]
    members: tuple[Member, ...] = ()


def supported(language: str | None) -> bool:
    return language in SPECS


@cache
def _parser(language: str) -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser(language)  # type: ignore[arg-type]


def _end_line(node: Any) -> int:
    """1-based last line of ``node`` (a node ending at column 0 ends on the previous line)."""
    row, col = node.end_point
    if col == 0 and row > node.start_point[0]:
        row -= 1
    return int(row) + 1


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace")


def _name(node: Any) -> str | None:
    named = node.child_by_field_name("name")
    if named is not None and named.type in _NAME_TYPES | {"constant", "qualified_identifier"}:
        if named.type == "qualified_identifier":
            return _name(named)
        return _text(named)
    declarator = node.child_by_field_name("declarator")
    if declarator is not None:  # C/C++: int (*name)(args) and friends
        return _text(declarator) if declarator.type in _NAME_TYPES else _name(declarator)
    for child in node.named_children:
        if child.type in ("simple_identifier", "type_identifier", "identifier"):
            return _text(child)
    return None


def _is_function(node: Any, spec: LangSpec) -> bool:
    if node.type not in spec.functions:
        return False
    if node.type == "variable_declarator":  # JS/TS: const f = () => ... or function () {...}
        value = node.child_by_field_name("value")
        return value is not None and value.type in _FUNCTION_VALUES
    return True


def _python_docstring(node: Any) -> Doc | None:
    body = node.child_by_field_name("body")
    if body is None or not body.named_children:
        return None
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_children:
        first = first.named_children[0]
    if first.type != "string":
        return None
    return Doc(first.start_byte, first.end_byte, clean_doc(_text(first)), python=True)


def _comment_doc(node: Any, spec: LangSpec) -> Doc | None:
    anchor = node
    while anchor.parent is not None and anchor.parent.type in _WRAPPERS:
        anchor = anchor.parent
    below_row = anchor.start_point[0]
    prev = anchor.prev_named_sibling
    while prev is not None and prev.type in spec.skip_between and _end_line(prev) >= below_row:
        below_row = prev.start_point[0]
        prev = prev.prev_named_sibling
    comments: list[Any] = []
    while prev is not None and "comment" in prev.type and _end_line(prev) >= below_row:  # no blank line
        text = _text(prev).lstrip()
        if not text.startswith(spec.doc_prefixes) or _trailing(prev, anchor):
            break  # not a doc comment, or a comment that shares a line with code
        comments.append(prev)
        if text.startswith("/*"):
            break  # one block comment is the whole doc
        below_row = prev.start_point[0]
        prev = prev.prev_named_sibling
    if not comments:
        return None
    comments.reverse()
    raw = "\n".join(_text(c) for c in comments)
    return Doc(comments[0].start_byte, comments[-1].end_byte, clean_doc(raw), python=False)


def _trailing(comment: Any, anchor: Any) -> bool:
    """Whether ``comment`` sits on a line with code: after the previous node, or before ``anchor``."""
    if _end_line(comment) - 1 == anchor.start_point[0]:
        return True
    before = comment.prev_sibling
    return before is not None and _end_line(before) - 1 == comment.start_point[0]


_MARKERS = re.compile(r"^\s*(?:/\*\*+|/\*|\*/|\*(?!\*)|///?!?|#+)?\s?")


def clean_doc(raw: str) -> str:
    """The text of a docstring or doc comment without quotes and comment markers (lines kept)."""
    raw = raw.strip()
    match = _STRING_RE.match(raw)
    if match:
        raw = match.group(2)
    raw = re.sub(r"\*+/\s*$", "", raw)
    lines = [_MARKERS.sub("", line, count=1).rstrip() for line in raw.splitlines()]
    return "\n".join(lines).strip()


def first_sentence(doc: str, *, max_words: int = 40) -> str:
    """The first sentence of the doc's first paragraph, whitespace collapsed, tags and markup dropped."""
    paragraph: list[str] = []
    for line in doc.splitlines():
        stripped = line.strip()
        if not stripped:
            if paragraph:
                break
            continue
        if stripped.startswith(("@", ":param", ":return", "Args:", "Returns:", "Raises:", "#")):
            break
        paragraph.append(stripped)
    text = " ".join(paragraph)
    text = re.sub(r"</?[A-Za-z][^>]*>", " ", text)  # C# <summary> and HTML tags
    text = re.sub(r"\{@\w+\s+([^}]*)\}", r"\1", text)  # JSDoc/Javadoc {@link X}
    text = " ".join(text.split())
    for match in re.finditer(r"[.!?](?=\s|$)", text):
        if not text[: match.end()].lower().endswith(_ABBREVIATIONS):
            text = text[: match.end()]
            break
    words = text.split()
    return " ".join(words[:max_words])


def _literal_content(node: Any) -> str | None:
    if any(c.type in ("interpolation", "template_substitution", "escape_sequence") for c in node.children):
        return None
    match = _STRING_RE.match(_text(node))
    if not match:
        return None
    prefix = _text(node)[: match.start(1)]
    if "f" in prefix.lower() or "\n" in match.group(2):
        return None
    return match.group(2)


def _is_docstring(node: Any) -> bool:
    """A Python docstring: the string that is the first statement of a function body."""
    statement = (
        node.parent if node.parent is not None and node.parent.type == "expression_statement" else node
    )
    body = statement.parent
    return (
        body is not None
        and body.type == "block"
        and body.named_children[0] == statement
        and body.parent is not None
        and body.parent.type == "function_definition"
    )


def _walk(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def extract(source: bytes, language: str, path: str) -> FileFacts:
    """Definitions (with docs) and string literals of one file; empty facts for an unknown language."""
    spec = SPECS.get(language)
    if spec is None:
        return FileFacts(path, language, (), ())
    tree = _parser(language).parse(source)
    definitions: list[Definition] = []
    index_of: dict[tuple[int, int], int] = {}
    literals: list[tuple[Any, str]] = []
    members: list[Member] = []
    for node in _walk(tree.root_node):
        if node.type in spec.members and (member := _member(node, spec)) is not None:
            members.append(member)
        if _is_function(node, spec) or node.type in spec.classes:
            name = _name(node)
            if not name:
                continue
            function = node.type not in spec.classes
            doc = None
            if function:
                doc = _python_docstring(node) if spec.python_docstrings else _comment_doc(node, spec)
            scope = [n for n in (_name(a) for a in _ancestors(node, spec)) if n]
            index_of[(node.start_byte, node.end_byte)] = len(definitions)
            definitions.append(
                Definition(
                    name=name,
                    qualified_name=".".join([*reversed(scope), name]),
                    kind="function" if function else "type",
                    start_line=node.start_point[0] + 1,
                    end_line=_end_line(node),
                    doc=doc,
                )
            )
        elif node.type in spec.strings and not _is_docstring(node):
            content = _literal_content(node)
            if content is not None:
                literals.append((node, content))
    found: list[StringLiteral] = []
    for node, content in literals:
        owner = next((a for a in _ancestors(node, spec) if _is_function(a, spec)), None)
        owner_index = None if owner is None else index_of.get((owner.start_byte, owner.end_byte))
        if owner_index is not None:  # literals outside any named function have no target
            found.append(StringLiteral(content, node.start_byte, node.start_point[0] + 1, owner_index))
    return FileFacts(path, language, tuple(definitions), tuple(found), tuple(members))


def _member(node: Any, spec: LangSpec) -> Member | None:
    """``node`` as a data member: named, and in an owner (a class, struct or enum) with no function
    between (a local is no member)."""
    name = _name(node)
    if not name:
        return None
    owners = spec.owners or spec.classes
    owner = node.parent
    while owner is not None and owner.type not in owners:
        if _is_function(owner, spec):
            return None
        owner = owner.parent
    if owner is None:
        return None
    scope = [n for n in (_name(a) for a in _ancestors(node, spec)) if n]
    if owner.type not in spec.classes and (owner_name := _name(owner)):
        scope.insert(0, owner_name)  # a C struct or enum: an owner, not one of the language's classes
    return Member(name, ".".join([*reversed(scope), name]), node.start_point[0] + 1, _end_line(node))


def _ancestors(node: Any, spec: LangSpec) -> Iterator[Any]:
    current = node.parent
    while current is not None:
        if _is_function(current, spec) or current.type in spec.classes:
            yield current
        current = current.parent
