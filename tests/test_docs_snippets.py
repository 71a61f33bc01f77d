"""Every fenced code block of the README and of docs/*.md runs as written, without a warning.

Each block is one of:

* ``python``: a page's Python blocks run in page order in one namespace (a fresh one per page),
  ``>>>`` blocks as doctests (their printed output compared), in a folder that holds the shared
  data sets the page names (``clef-ehealth-2015-task2/``, ``examples/lambdarank/``,
  ``rb04_data.csv``...), linked from ``$RISKEVAL_DATA``;
* ``sh``/``console``: commands (``riskeval``, ``python``) run by ``bash`` in a subprocess, in that
  folder (:mod:`processes`: bounded by CPU time); each must exit 0 and write nothing on stderr;
* ``text`` that starts with ``$ riskeval``: the command and what it prints; it is run and its
  output compared line by line, up to a ``...`` line that stands for the rest;
* ``text``, ``markdown``, ``latex``: output, formulas or file layouts shown, not code;
* a block of any language preceded by ``<!-- not run: REASON -->`` (the reader's own files, a
  cluster, an install): not run, for the reason given; but the lines of any shell block that run
  on the shipped example (``riskeval ... --example``) are run, in this process, in the fast suite.

A block that is not run is still checked as far as it can be without the reader's files: its
``riskeval`` command lines parse (subcommand, options, choices) and its Python compiles.

Any other block fails :func:`test_every_block_is_classified`: a new example is run, or said not to
be.  A warning or a line on stderr fails its block unless the page shows it (its text is on the
page).  A block (or a page's Python) that reads the campaign data, trains, samples or writes a whole
report is marked slow here (:data:`SLOW_PYTHON`, :func:`_slow_command`).
"""

from __future__ import annotations

import contextlib
import doctest
import glob
import io
import os
import re
import shlex
import sys
import warnings
from pathlib import Path

import processes
import pytest
from doc_blocks import Block, page_blocks
from shared_data import shared_data

from riskeval.cli.main import main
from riskeval.measures.declared import RISK_MEASURES

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHOWN = {"text", "markdown", "latex"}
SHELL = {"sh", "console"}
#: The marks a page may put above a block: ``not run: REASON``, and those of the tests that check
#: a page's values (``slow: REASON`` in coming-from.md; the query-variation blocks of papers.md).
KNOWN_MARKS = {"not run", "slow", "needs the query-variation data"}
#: The words a documented command line may start with (``W=...`` assignments aside).
COMMANDS = {"riskeval", "python", "head"}

#: The line a process writes when it first compiles a part of riskeval's kernels
#: (:func:`riskeval.core._numba.compile_notice`): it depends on the state of numba's cache.
COMPILE_NOTICE = re.compile(
    r"riskeval: compiling .*, once: about \d+ s; later runs load them from the cache\."
)

#: Pages whose Python blocks are slow to run, and why (the others are in the fast suite).
SLOW_PYTHON = {
    "bayes.md": "samples posteriors",
    "coming-from.md": "ranx compiles its metrics with numba",
    "ltr.md": "trains models",
    "report.md": "writes whole reports",
    "variations.md": "reads the CLEF eHealth 2015 campaign",
    "walkthrough-web2012.md": "evaluates the TREC Web 2012 runs",
    "README.md": "its Bayesian example samples posteriors",
    "papers.md": "reads the query-variation data and draws every figure",
    "scale.md": "starts a local Dask cluster",
}

#: What a page's examples find in their folder: a path on the page -> where it is in the shared
#: data.  Only the paths a page names are linked (a page that names none needs no data), with a
#: LETOR file's ``.query`` file beside it.
DATA = {
    "clef-ehealth-2015-task2": ("clef-ehealth-2015-task2",),
    "query-variations": ("query-variations",),
    "trec-web-2012": ("trec-web-2012",),
    "trec-dl-2019-passage": ("trec-dl-2019-passage",),
    "trec-dl-2020-passage": ("trec-dl-2020-passage",),
    "examples/lambdarank": ("letor-lightgbm-lambdarank",),
    "rank.train": ("letor-lightgbm-lambdarank", "rank.train"),
    "rank.test": ("letor-lightgbm-lambdarank", "rank.test"),
    "rb04_data.csv": ("benham2020-bayesian-risk", "rb04_data.csv"),
}


def _blocks() -> list[Block]:
    return [block for page in PAGES for block in page_blocks(page)]


def _kind(block: Block) -> str | None:
    """``not run``, ``shown``, ``python``, ``shell`` or ``output`` (a ``$ riskeval`` text block);
    ``None``: unclassified."""
    if block.mark.startswith("not run:") and block.mark[len("not run:") :].strip():
        return "not run"
    if block.language == "text" and block.code.startswith("$ riskeval "):
        return "output"
    if block.language in SHOWN:
        return "shown"
    if block.language == "python":
        return "python"
    if block.language in SHELL:
        return "shell"
    return None


def _commands(block: Block) -> list[str]:
    """The command lines of a shell block: continuation lines joined, ``$ `` prompts removed,
    comments kept (bash reads them)."""
    lines, pending = [], ""
    for line in block.code.splitlines():
        if block.language == "console" and not pending:
            if not line.startswith("$ "):
                continue  # output shown after a prompt
            line = line[2:]
        pending += line
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip():
            lines.append(pending.strip())
        pending = ""
    return lines


def _unrunnable(block: Block) -> list[str]:
    """The command lines of a shell block that do not start with a documented command."""
    bad = []
    for line in _commands(block):
        words = shlex.split(line, comments=True)
        while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
            words = words[1:]
        if words and (words[0] not in COMMANDS or "..." in words):
            bad.append(line)
    return bad


def test_every_block_is_classified():
    """A block the test cannot run (the reader's files, an install) says so on the page, with a
    reason; every other block is a kind the tests below run, or output shown."""
    blocks = _blocks()
    assert len(blocks) > 100 and len(PAGES) > 10
    unclassified = [f"{b.where} ({b.language or 'no language'})" for b in blocks if _kind(b) is None]
    assert not unclassified, f"blocks of no known kind (mark them <!-- not run: REASON -->): {unclassified}"
    shell = [(b.where, _unrunnable(b)) for b in blocks if _kind(b) == "shell" and _unrunnable(b)]
    assert not shell, f"shell blocks with commands that cannot run as written (mark them not run): {shell}"
    marks = {b.mark.split(":")[0] for b in blocks if b.mark}
    assert marks <= KNOWN_MARKS, f"unknown marks: {marks - KNOWN_MARKS}"


def _shown_on(page: Path, text: str) -> bool:
    """Whether ``text`` (a warning, a line of stderr) is shown on ``page``, whitespace aside."""
    words = " ".join(text.split())
    return bool(words) and words in " ".join(page.read_text(encoding="utf-8").split())


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A function that makes the folder a page's examples run in (the data it names linked) and
    changes to it."""

    def make(page: Path, blocks: list[Block]) -> Path:
        text = "\n".join(b.code for b in blocks)
        for name, parts in DATA.items():
            if re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w.-])", text):
                source, link = shared_data(*parts), tmp_path / name
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(source)
                query = source.with_name(source.name + ".query")  # a LETOR file's query sizes
                if query.is_file():
                    link.with_name(query.name).symlink_to(query)
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("MPLBACKEND", "Agg")
        return tmp_path

    return make


def _python_pages() -> list:
    params = []
    for page in PAGES:
        blocks = [b for b in page_blocks(page) if _kind(b) == "python"]
        if blocks:
            marks = [pytest.mark.slow] if page.name in SLOW_PYTHON else []
            params.append(pytest.param(page, blocks, marks=marks, id=page.name))
    return params


def _default_warnings() -> None:
    """Python's default warning filters, as a reader's script sees them: deprecations shown where
    the page's code makes them, not where a library does."""
    warnings.resetwarnings()
    warnings.simplefilter("default")
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.filterwarnings("ignore", category=category)
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")


@pytest.mark.parametrize("page, blocks", _python_pages())
def test_python_blocks_run_as_written(page: Path, blocks: list[Block], workspace):
    """The page's Python blocks, in page order in one namespace, from a folder holding the data
    the page names; doctests print what they show; no warning but those the page shows.  A risk
    measure a page declares is removed from the registry afterwards."""
    import matplotlib.pyplot as plt

    workspace(page, blocks)
    namespace: dict = {"__name__": "__main__"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    unshown, declared = [], set(RISK_MEASURES)
    try:
        for block in blocks:
            out = io.StringIO()
            with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
                _default_warnings()
                if ">>>" in block.code:
                    test = parser.get_doctest(block.code, namespace, block.where, str(page), block.line)
                    failures = runner.run(test, clear_globs=False).failed
                    namespace.update(test.globs)  # a DocTest works on a copy of its globals
                    assert not failures, f"{block.where}: the doctest prints otherwise:\n{out.getvalue()}"
                else:
                    # the code on the page's own line numbers, so that a traceback points into it
                    exec(compile("\n" * block.line + block.code, str(page), "exec"), namespace)  # noqa: S102
            unshown += [
                f"{block.where}: {w.category.__name__}: {w.message}"
                for w in caught
                if not _shown_on(page, str(w.message))
            ]
    finally:
        plt.close("all")
        for name in set(RISK_MEASURES) - declared:  # a page's own risk measure (risk.md)
            RISK_MEASURES.pop(name)
    assert not unshown, f"warnings the page does not show: {unshown}"


def _slow_command(block: Block) -> bool:
    """A command on the campaign data, or one that trains or samples: for the slow suite."""
    return any(name in block.code for name in DATA) or " ltr " in block.code or " bayes " in block.code


def _output_blocks() -> list:
    params = []
    for block in _blocks():
        if _kind(block) == "output":
            marks = [pytest.mark.slow] if _slow_command(block) else []
            params.append(pytest.param(block, marks=marks, id=block.where))
    return params


@pytest.mark.parametrize("block", _output_blocks())
def test_snapshot_command_prints_what_the_page_shows(block: Block, workspace, capsys):
    """Regression snapshot: the pages' outputs were pasted from riskeval's own runs; a change of
    any printed line is caught here (the values themselves are checked in the measures' tests).
    The command runs in this process (as the ``riskeval`` entry point does), from a folder holding
    the data it names; a command whose output is an error exits 2."""
    workspace(block.page, [block])
    command, *shown = block.code.rstrip("\n").splitlines()
    args = []
    for arg in shlex.split(command[2:])[1:]:
        args += (sorted(glob.glob(arg)) or [arg]) if any(c in arg for c in "*?[") else [arg]
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    got = (out + err).splitlines()
    assert code == (2 if shown[0].startswith("riskeval: error:") else 0), err
    if "..." in shown:
        shown = shown[: shown.index("...")]
        got = got[: len(shown)]
    assert got == shown


def _example_lines() -> list:
    """The command lines of the pages' shell blocks (those marked not run for the reader's files
    among them) that run on the shipped example, with no redirection or pipe, each once (where it
    first appears): run in this process, for the fast suite."""
    found: dict[tuple[str, ...], Block] = {}
    for block in _blocks():
        if block.language in SHELL and not _slow_command(block):
            for line in _commands(block):
                words = shlex.split(line, comments=True)
                if (
                    words[0] == "riskeval"
                    and "--example" in words
                    and not set("|><") & set(line.split("#")[0])
                ):
                    found.setdefault(tuple(words[1:]), block)
    return [
        pytest.param(block, list(args), id=f"{block.where} {' '.join(args)}"[:80])
        for args, block in found.items()
    ]


@pytest.mark.parametrize("block, args", _example_lines())
def test_example_command_runs_without_a_warning(block: Block, args: list[str], tmp_path, monkeypatch, capsys):
    """Every command of the pages on the shipped example (the README's first commands among
    them): exit 0, output, nothing on stderr."""
    monkeypatch.chdir(tmp_path)
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert code in (0, None) and out, (block.where, err)
    assert err == "", (block.where, err)


def _shell_pages() -> list:
    params = []
    for page in PAGES:
        blocks = [b for b in page_blocks(page) if _kind(b) == "shell"]
        if blocks:
            params.append(pytest.param(page, blocks, id=page.name))
    return params


@pytest.mark.slow
@pytest.mark.parametrize("page, blocks", _shell_pages())
def test_shell_blocks_run_as_written(page: Path, blocks: list[Block], workspace):
    """The page's shell blocks in page order, each by bash in a subprocess, from one folder
    holding the data they name (a block may read what an earlier one wrote; ``riskeval`` and
    ``python`` are this checkout's): exit 0, nothing on stderr but what the page shows (a warning
    line's text on the page; the notice of a first compilation aside)."""
    folder = workspace(page, blocks)
    bin_ = folder / ".bin"
    bin_.mkdir()
    for name, run in (("riskeval", f'"{sys.executable}" -m riskeval'), ("python", f'"{sys.executable}"')):
        (bin_ / name).write_text(f'#!/bin/sh\nexec {run} "$@"\n')
        (bin_ / name).chmod(0o755)
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(bin_), os.environ["PATH"]]),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
        "MPLBACKEND": "Agg",
    }
    for block in blocks:
        script = "\n".join(_commands(block))
        done = processes.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"{block.where}: exit {done.returncode}\n{done.stderr}"
        unshown = [
            line
            for line in done.stderr.splitlines()
            if not COMPILE_NOTICE.fullmatch(line)
            and not _shown_on(page, line.removeprefix("riskeval: warning: "))
        ]
        assert not unshown, f"{block.where} writes on stderr: {unshown}"


def test_python_blocks_not_run_are_python():
    """A Python block that is not run (the reader's files, a cluster) still compiles."""
    blocks = [b for b in _blocks() if _kind(b) == "not run" and b.language == "python"]
    assert blocks
    for block in blocks:
        compile("\n" * block.line + block.code, str(block.page), "exec")


def _reader_lines() -> list:
    """The ``riskeval`` command lines of the blocks marked not run (the reader's files, a cluster),
    each part of a pipe on its own, output redirections left out."""
    params = []
    for block in _blocks():
        if _kind(block) != "not run" or block.language not in SHELL | {"text"}:
            continue
        lines = _commands(block) if block.language in SHELL else [block.code.splitlines()[0][2:]]
        for line in lines:
            for part in line.split("#")[0].split("|"):
                words = shlex.split(part.split(">")[0])
                if words[:1] == ["riskeval"] and words[1:] != ["-"]:
                    params.append(
                        pytest.param(block, words[1:], id=f"{block.where} {' '.join(words[1:])}"[:80])
                    )
    return params


def _parse(args: list[str]) -> None:
    """Parse ``riskeval ARGS`` as the command line does (subcommand, options, their choices), and
    run nothing."""
    import click

    from riskeval.cli.main import cli

    command: click.Command = cli
    context = None
    name = "riskeval"
    while isinstance(command, click.Group):
        group = click.Context(command, info_name=name, parent=context)
        name, found, args = command.resolve_command(group, args)
        assert found is not None and name is not None
        context, command = group, found
    command.make_context(name, args, parent=context)


@pytest.mark.parametrize("block, args", _reader_lines())
def test_reader_command_parses(block: Block, args: list[str], tmp_path, monkeypatch):
    """A command of a block that is not run (it needs the reader's files) names a subcommand, its
    options and their choices as the command line has them: it parses (and runs nothing), in a
    folder where the files and folders that the command line checks exist, empty."""
    import click

    monkeypatch.chdir(tmp_path)
    for _ in range(len(args) + 1):
        try:
            return _parse(args)
        except click.BadParameter as error:  # a path the command line checks: made, empty
            missing = re.fullmatch(r"(File|Directory) '(.+)' does not exist\.", error.message)
            if missing is None:
                raise
            kind, path = missing.groups()
            if kind == "File":
                (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
                (tmp_path / path).touch()
            else:
                (tmp_path / path).mkdir(parents=True)
