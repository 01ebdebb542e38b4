"""Each language's imports are found with the module as written and the line it is on."""

from __future__ import annotations

import pytest

from indexer.errors import GrammarUnavailableError
from indexer.imports import IMPORT_LANGUAGES, ImportRef, extract_imports

# language -> (source, [(module, line), ...] in source order)
CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "python": (
        """import os.path, sys as system
from . import sibling
from ..pkg.mod import (
    a,
    b,
)
from __future__ import annotations
import importlib
plugin = importlib.import_module("plugins.extra")
name = "os"
__import__(name)
""",
        [
            ("os.path", 1),
            ("sys", 1),
            (".", 2),
            ("..pkg.mod", 3),
            ("__future__", 7),
            ("importlib", 8),
            ("plugins.extra", 9),
        ],
    ),
    "javascript": (
        """import fs from "fs";
import { a, b } from '../lib/x.js';
import "./side-effect.css";
export * from "./reexport";
const path = require('path');
const lazy = import("./lazy");
const dynamic = require(name);
""",
        [
            ("fs", 1),
            ("../lib/x.js", 2),
            ("./side-effect.css", 3),
            ("./reexport", 4),
            ("path", 5),
            ("./lazy", 6),
        ],
    ),
    "typescript": (
        """import type { X } from "@scope/pkg";
import zlib = require("zlib");
export { y } from "./y";
async function load() {
  return await import(
    "./chunk"
  );
}
""",
        [("@scope/pkg", 1), ("zlib", 2), ("./y", 3), ("./chunk", 6)],
    ),
    "tsx": (
        """import React from "react";
import styles from "./App.module.css";
export const App = () => <div className={styles.app} />;
""",
        [("react", 1), ("./App.module.css", 2)],
    ),
    "go": (
        """package main

import "fmt"

import (
\t"net/http"
\tretry "github.com/example/retry"
\t_ "embed"
)
""",
        [("fmt", 3), ("net/http", 6), ("github.com/example/retry", 7), ("embed", 8)],
    ),
    "rust": (
        """use std::collections::HashMap;
use std::fmt::{self, Display};
use crate::store::Store as S;
use super::*;
use serde;
extern crate alloc;
""",
        [
            ("std::collections::HashMap", 1),
            ("std::fmt", 2),
            ("crate::store::Store", 3),
            ("super", 4),
            ("serde", 5),
            ("alloc", 6),
        ],
    ),
    "java": (
        """package com.example;

import java.util.List;
import java.util.concurrent.*;
import static java.util.Objects.requireNonNull;

class A {}
""",
        [("java.util.List", 3), ("java.util.concurrent", 4), ("java.util.Objects.requireNonNull", 5)],
    ),
    "kotlin": (
        """package com.example

import kotlinx.coroutines.delay
import java.time.Instant as Time
import org.junit.jupiter.api.*
""",
        [("kotlinx.coroutines.delay", 3), ("java.time.Instant", 4), ("org.junit.jupiter.api", 5)],
    ),
    "scala": (
        """package com.example

import scala.collection.mutable
import scala.util.{Failure, Success}
import java.io._
import a.b, c.d.{e => f}
import g.h as i
""",
        [
            ("scala.collection.mutable", 3),
            ("scala.util", 4),
            ("java.io", 5),
            ("a.b", 6),
            ("c.d", 6),
            ("g.h", 7),
        ],
    ),
    "c": (
        """#include <stdio.h>
#include "lib/buffer.h"

int main(void) { return 0; }
""",
        [("stdio.h", 1), ("lib/buffer.h", 2)],
    ),
    "cpp": (
        """#include <vector>
#include "geometry.hpp"
#ifdef DEBUG
#include <iostream>
#endif
""",
        [("vector", 1), ("geometry.hpp", 2), ("iostream", 4)],
    ),
    "csharp": (
        """using System;
using static System.Math;
using Generic = System.Collections.Generic;
global using System.Linq;

namespace A { class B {} }
""",
        [("System", 1), ("System.Math", 2), ("System.Collections.Generic", 3), ("System.Linq", 4)],
    ),
    "haskell": (
        """module Data.Foo (foo) where

import qualified Data.Map.Strict as M
import Data.List (sort)
import {-# SOURCE #-} Data.Foo.Types

foo :: Int
foo = 1
""",
        [("Data.Map.Strict", 3), ("Data.List", 4), ("Data.Foo.Types", 5)],
    ),
    "lua": (
        """local actions = require("telescope.actions")
local Path = require "plenary.path"
local dynamic = require(name)
local ok, mod = pcall(require, "optional")
""",
        [("telescope.actions", 1), ("plenary.path", 2)],
    ),
    "ruby": (
        """require "json"
require_relative 'support/backoff'
load "tasks.rb"
require name
""",
        [("json", 1), ("support/backoff", 2), ("tasks.rb", 3)],
    ),
    "php": (
        """<?php
namespace App;

use App\\Models\\User;
use App\\{Foo, Bar};
use Psr\\Log\\LoggerInterface as Logger;
require 'vendor/autoload.php';
include_once("lib/util.php");
require $dynamic;
""",
        [
            ("App\\Models\\User", 4),
            ("App", 5),
            ("Psr\\Log\\LoggerInterface", 6),
            ("vendor/autoload.php", 7),
            ("lib/util.php", 8),
        ],
    ),
    "swift": (
        """import Foundation
import struct UIKit.CGRect
@testable import MyApp
""",
        [("Foundation", 1), ("UIKit.CGRect", 2), ("MyApp", 3)],
    ),
    "bash": (
        """#!/usr/bin/env bash
source ./lib/common.sh
. "$HOME/.deployrc"
echo source not-an-import
""",
        [("./lib/common.sh", 2), ("$HOME/.deployrc", 3)],
    ),
}


def test_every_language_has_an_import_case() -> None:
    assert set(CASES) == IMPORT_LANGUAGES
    assert len(IMPORT_LANGUAGES) == 18


@pytest.mark.parametrize("language", sorted(CASES))
def test_imports_are_found_with_module_and_line(language: str) -> None:
    source, expected = CASES[language]
    refs = extract_imports(source.encode(), language)
    assert [(r.module, r.line) for r in refs] == expected


def test_import_text_is_the_statement_with_whitespace_collapsed() -> None:
    refs = extract_imports(b"from x import (\n    a,\n    b,\n)\n", "python")
    assert refs == [ImportRef(module="x", line=1, text="from x import ( a, b, )")]


def test_imports_survive_invalid_utf8_and_syntax_errors() -> None:
    source = b"import os\n\xff\xfe def (((\nimport sys\n"
    modules = [r.module for r in extract_imports(source, "python")]
    assert "os" in modules


def test_a_language_without_a_grammar_is_a_clear_error() -> None:
    with pytest.raises(GrammarUnavailableError, match="no tree-sitter grammar"):
        extract_imports(b"x", "klingon")
