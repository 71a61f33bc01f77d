"""What users and developers read cites the papers and describes the data, never internal planning
notes or the machine it was written on.

Every text file under ``src/``, ``docs/``, ``benchmarks/``, ``tools/`` and ``.ci/``, and
``README.md`` and ``CHANGELOG.md``, must not mention the internal formula notes (``SPEC``,
``SPEC.md``, ``SPEC §4``), a paper by an internal nickname (``seed dincer2014-trisk``, ``dincer2016
Table 7``, ``seeds/``), a tracker item (``issue 5``, ``(issue: ...)``), or a path to the developers'
data folder (``../shared/data/...``).  Cite a paper by its authors, venue and year and the section,
equation or table; say where a user gets the data.  Random-number options (``seed=``, ``--seed N``,
"the seed is recorded") and variables called ``spec`` are not references and pass.  No file of the
repository names an absolute path of a development machine (under a top-level ``work``, ``home``,
``Users`` or ``root`` folder), and no
test is named for the tracker rather than for what it checks (``test_issue_2_acceptance_...``).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("src", "docs", "benchmarks", "tools", ".ci", "README.md", "CHANGELOG.md")
SKIPPED_DIRS = {"__pycache__", ".ipynb_checkpoints"}

#: name → pattern; a line matching any of them is reported.
PATTERNS: dict[str, re.Pattern[str]] = {
    # the notes themselves: upper-case SPEC as a word (SPEC, SPEC.md, SPEC §4, SPEC's); ``spec`` is a name
    "internal notes (SPEC)": re.compile(r"\bSPEC\b"),
    # "seed dincer2014-trisk", "Seed: zhang2013", "seed *dincer2016-zrisk-georisk*", "seeds/"
    "paper by internal nickname (seed ...)": re.compile(
        r"\bseeds?\b[\s:*_`'\"(]*[a-zç]+\d{4}\b|\bseeds/", re.IGNORECASE
    ),
    # "dincer2016 Table 7", "zhang2013-bias-variance", "zuccon2016"
    "paper by internal nickname": re.compile(r"\b(?:din[cç]er|zhang|zuccon)\d{4}", re.IGNORECASE),
    # "issue 5", "issue #5", "issues 2 and 3", "(issue: risk core, performance)"
    "tracker item (issue N)": re.compile(r"\bissues?\s+#?\d+|\(issue\b", re.IGNORECASE),
    # "../shared/data/clef-ehealth-2015-task2", and the same folder by its absolute path
    "developers' data folder (../shared)": re.compile(r"(?:\.\.|/work)/shared\b"),
}


#: Where the developers' data folder is the documented default (the benchmarks, tools and CI).
DATA_FOLDER_ALLOWED = ("benchmarks", "tools", ".ci")


def scanned_files() -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files.extend(
                p
                for p in sorted(path.rglob("*"))
                if p.is_file() and not SKIPPED_DIRS.intersection(p.relative_to(ROOT).parts)
            )
    return files


def offences(text: str) -> list[tuple[int, str, str]]:
    """``(line number, pattern name, line)`` of every offending line of ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for name, pattern in PATTERNS.items():
            if pattern.search(line):
                found.append((number, name, line.strip()))
    return found


_ROOT_DIR = "/"

#: An absolute path of a development machine: a top-level work, home, Users or root folder (not
#: "/usr/bin").
ABSOLUTE_PATH = re.compile(r"(?<![\w.~/-])/(?:work|home|Users|root)/")
#: Words of the tracker, not of the behaviour, in a test's name.
PROCESS_WORDS = re.compile(
    r"(?:^|_)(?:issues?|acceptance|review(?:er)?|session|ticket)(?=_|$)", re.IGNORECASE
)


def repository_files() -> list[Path]:
    """Every file git would track: tracked or untracked and not ignored."""
    listed = subprocess.check_output(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, text=True)
    return [ROOT / name for name in listed.splitlines() if (ROOT / name).is_file()]


def test_no_absolute_path_of_a_development_machine():
    report = []
    for path in repository_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if ABSOLUTE_PATH.search(line):
                report.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:160]}")
    assert not report, "absolute paths that exist on one machine only:\n" + "\n".join(report)


#: Examples built from their parts, so that this file names no such path itself.
CAUGHT = [
    f'Path("{_ROOT_DIR}work{_ROOT_DIR}shared{_ROOT_DIR}data")',
    f"see {_ROOT_DIR}home{_ROOT_DIR}me",
    f"  {_ROOT_DIR}root{_ROOT_DIR}x",
]


@pytest.mark.parametrize("line", CAUGHT)
def test_absolute_paths_are_caught(line):
    assert ABSOLUTE_PATH.search(line)


@pytest.mark.parametrize(
    "line",
    [
        "/usr/bin/chromium",
        "../shared/data",
        f"https://x.org{_ROOT_DIR}work{_ROOT_DIR}a",
        f"~{_ROOT_DIR}work{_ROOT_DIR}x",
    ],
)
def test_other_paths_pass(line):
    assert not ABSOLUTE_PATH.search(line)


def test_test_names_say_what_they_check():
    names = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for name in re.findall(r"^\s*(?:async\s+)?def\s+(test_\w+)", path.read_text(encoding="utf-8"), re.M):
            if PROCESS_WORDS.search(name):
                names.append(f"{path.relative_to(ROOT)}: {name}")
    assert not names, "tests named for the tracker, not for what they check:\n" + "\n".join(names)


@pytest.mark.parametrize(
    "name", ["test_issue_2_acceptance_examples_are_verbatim", "test_acceptance_command", "test_reviewer_case"]
)
def test_tracker_words_in_test_names_are_caught(name):
    assert PROCESS_WORDS.search(name)


@pytest.mark.parametrize("name", ["test_preview_of_the_report", "test_tissue_scores", "test_issued_queries"])
def test_other_test_names_pass(name):
    assert not PROCESS_WORDS.search(name)


def test_user_facing_text_cites_papers_not_internal_notes():
    report = []
    for path in scanned_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # images, compiled caches
            continue
        for number, name, line in offences(text):
            if (
                name.startswith("developers' data folder")
                and path.relative_to(ROOT).parts[0] in DATA_FOLDER_ALLOWED
            ):
                continue
            report.append(f"{path.relative_to(ROOT)}:{number}: {name}: {line[:160]}")
    assert not report, (
        f"{len(report)} line(s) point readers at internal notes instead of the papers or the data "
        "(cite authors, venue and year with the section/equation/table; describe where the data "
        "comes from):\n" + "\n".join(report)
    )


def test_scan_covers_the_package_and_the_docs():
    files = {p.relative_to(ROOT).as_posix() for p in scanned_files()}
    assert {"README.md", "CHANGELOG.md", "docs/risk.md", "src/riskeval/__init__.py", ".ci/run"} <= files
    assert any(f.startswith("benchmarks/") for f in files) and any(f.startswith("tools/") for f in files)
    assert any(f.startswith("src/riskeval/ltr/") for f in files)


@pytest.mark.parametrize(
    "line",
    [
        "ZRisk and GeoRisk (SPEC §4).",
        "Every formula follows `SPEC.md`.",
        "With the default AP form this reproduces Table 1 with SPEC's corrections:",
        "(seed dincer2014-trisk-hypothesis-testing; SPEC §1–2)",
        "The baseline-bias study (seed dincer2014-biased-baselines).",
        "T-FARO (seed *dincer2014-trisk-hypothesis-testing* §6)",
        "Seed: zhang2013-bias-variance",
        "see the papers in seeds/",
        '"Loss > 20%" (dincer2016 Table 7)',
        "Table 7 of dincer2016: every model against every baseline",
        "The acceptance example (issue 5), runnable as is:",
        "its Python examples (issue #2's acceptance examples)",
        '"""Benchmark of ``risk_table`` (issue: risk core, performance).',
        "riskeval mean-variance --clef2015 ../shared/data/clef-ehealth-2015-task2 --alpha 5",
        'd = read_letor("../shared/data/letor-lightgbm-lambdarank/rank.train")',
    ],
)
def test_internal_references_are_caught(line):
    assert offences(line)


@pytest.mark.parametrize(
    "line",
    [
        "    seed: int | None = None,",
        "        seed=seed if not isinstance(seed, np.random.Generator) else None,",
        '@click.option("--seed", type=int, help="Seed of --unequal downsample.")',
        "[--unequal raise|drop|downsample --seed N]",
        "keeps a seeded random subset of variants; the seed is recorded in the result",
        "X, y, group, qid = make_ranking(200, 50, 20, seed=0)",
        "    M: pd.DataFrame, spec: Any, func: str, *, leave_one_out: bool = False",
        "    for spec in measures:",
        "Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 21",
        "Zhang, Song, Wang & Hou, SIGIR 2013, eq. 7",
        "Zuccon, Palotti & Hanbury, CIKM 2016, §4.1",
        "riskeval mean-variance --clef2015 clef-ehealth-2015-task2 --alpha 5",
        "head -3 web2012-err20.csv",
        "This is a known issue with ties; see the judgment calls.",
    ],
)
def test_legitimate_text_passes(line):
    assert not offences(line)
