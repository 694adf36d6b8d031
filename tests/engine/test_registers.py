"""Register audit: each game's interpretation register and its code agree.

- every register id the code or data cites (a comment, a docstring, a refusal, a "_reg" key) is an
  entry of that game's register (or, where refusals share the namespace, a rule of its trace);
- every register entry names code: its "where" column names at least one function, file or data
  key of the game, and every name it gives exists (a renamed function leaves a stale entry).
"""
from __future__ import annotations

import json
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GAMES = os.path.join(ROOT, "companion", "games")
DOCS = os.path.join(ROOT, "docs")

# game folder -> (register file, trace file, pattern of the register's ids, whether refusal ids
# share the register's namespace, so a cited id may also be a rule of the trace)
REGISTERS = {
    "civmint": ("interpretation-register.md", "civmint-trace.md", r"REG-[A-Z]\d+", False),
    "civ_quest": ("civ_quest-register.md", "civ_quest-trace.md", r"CQ-R\d+", False),
    "civ_builder": ("civ_builder-register.md", "civ_builder-trace.md", r"CB-[A-Z]+\d+[a-z]?", False),
    "civ_card_game": ("civ_card_game-register.md", "civ_card_game-trace.md", r"CC-[A-Z]+\d+[a-z]?", True),
    "mint_works": ("mint_works-register.md", "mint_works-trace.md", r"MW-R\d+", False),
}


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _sources(game):
    """{relative path: text} of the game's code and data."""
    out = {}
    base = os.path.join(GAMES, game)
    for d, _, files in os.walk(base):
        for f in files:
            if f.endswith((".py", ".json", ".kv")):
                p = os.path.join(d, f)
                out[os.path.relpath(p, base)] = _read(p)
    return out


def _rows(md):
    """(id, cells) of every table row whose first cell is an id."""
    for line in md.splitlines():
        m = re.match(r"^\|\s*([A-Z][A-Za-z0-9-]*)\s*\|", line)
        if m:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            yield m.group(1), cells


def _json_keys(sources):
    keys = set()

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                keys.add(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    for name, text in sources.items():
        if name.endswith(".json"):
            walk(json.loads(text))
    return keys


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _resolver(game):
    sources = _sources(game)
    engine = {os.path.basename(p): _read(os.path.join(ROOT, "companion", "engine", p))
              for p in os.listdir(os.path.join(ROOT, "companion", "engine")) if p.endswith(".py")}
    files = {os.path.basename(p) for p in sources} | {os.path.dirname(p) for p in sources if os.sep in p}
    code = "\n".join(sources.values()) + "\n".join(engine.values())
    words = set(_WORD.findall(code))
    keys = _json_keys(sources)

    def resolves(token):
        token = token.strip("()[],;:'\"")
        if not token:
            return None
        if token in files or token in engine:
            return True
        if "/" in token and token.endswith((".py", ".json", ".kv")):  # a path
            return any(os.path.exists(os.path.join(b, token)) for b in
                       (os.path.join(GAMES, game), os.path.join(ROOT, "companion"), ROOT))
        if re.fullmatch(r"[A-Z]{2,3}(-[A-Z0-9]+)+", token):  # a refusal's rule id
            return f'"{token}"' in code
        token = token.replace("[*]", "")
        if "/" in token:  # alternatives: a/b
            return all(resolves(t) for t in token.split("/"))
        if "." in token and not token.endswith((".py", ".json", ".kv")):  # a data key path
            parts = [p for p in token.split(".") if p and p != "*"]
            return all(p in keys or p in words or p.isdigit() for p in parts)
        if token.endswith((".py", ".json", ".kv")):
            return False
        if not _WORD.fullmatch(token):
            return None  # a value or a phrase, not a name
        return token in words or token in keys
    return resolves, sources


@pytest.mark.parametrize("game", sorted(REGISTERS))
def test_every_register_id_cited_in_code_is_in_the_register(game):
    reg_file, trace_file, pattern, shared = REGISTERS[game]
    ids = {i for i, _ in _rows(_read(os.path.join(DOCS, reg_file)))}
    if shared:
        ids |= {i for i, _ in _rows(_read(os.path.join(DOCS, trace_file)))}
    _, sources = _resolver(game)
    missing = {}
    for name, text in sources.items():
        for m in re.finditer(r"(?<![A-Za-z0-9-])(" + pattern + r")(?![A-Za-z0-9-])", text):
            if m.group(1) not in ids:
                missing.setdefault(m.group(1), name)
    assert not missing, f"{game}: ids cited in code but not in docs/{reg_file}: {missing}"


@pytest.mark.parametrize("game", sorted(REGISTERS))
def test_every_register_entry_names_code_that_exists(game):
    reg_file = REGISTERS[game][0]
    resolves, _ = _resolver(game)
    problems = []
    for rid, cells in _rows(_read(os.path.join(DOCS, reg_file))):
        where = cells[-1]
        named = re.findall(r"`([^`]+)`", where)
        found, stale = 0, []
        for seg in named:
            toks = seg.split()
            if toks and "/" in toks[0] and resolves(toks[0]):  # `path/to/file.py Name`: Name is in that file
                found += 1
                text = next((_read(os.path.join(b, toks[0])) for b in (os.path.join(GAMES, game),
                             os.path.join(ROOT, "companion"), ROOT) if os.path.exists(os.path.join(b, toks[0]))))
                stale += [t for t in toks[1:] if _WORD.fullmatch(t) and t not in set(_WORD.findall(text))]
                continue
            for tok in toks:
                r = resolves(tok)
                if r:
                    found += 1
                elif r is False:
                    stale.append(tok)
        if not found:
            problems.append(f"{rid}: names no code ({where!r})")
        elif stale:
            problems.append(f"{rid}: names what the code does not have: {stale}")
    assert not problems, f"docs/{reg_file}:\n" + "\n".join(problems)


# data files that hold no rule values (help texts, the flow of steps, the map's layout for the view)
_NOT_RULES = ("help.json", "flow.json")


@pytest.mark.parametrize("game", sorted(REGISTERS))
def test_every_data_value_is_named_by_the_register_or_the_trace(game):
    """A value the engine reads from data is either the text's (a trace row names it beside the
    text it comes from) or the project's decision (a register entry names it): none is unnamed."""
    reg_file, trace_file = REGISTERS[game][:2]
    docs = _read(os.path.join(DOCS, reg_file)) + _read(os.path.join(DOCS, trace_file))
    named = set(_WORD.findall(docs))
    data = os.path.join(GAMES, game, "data")
    missing = []
    for f in sorted(os.listdir(data)):
        if not f.endswith(".json") or f in _NOT_RULES:
            continue
        doc = json.loads(_read(os.path.join(data, f)))
        if not isinstance(doc, dict):
            continue
        missing += [f"{f} {k}" for k in doc if not k.startswith("_") and k not in ("version", "about")
                    and k not in named]
    assert not missing, f"{game}: data values named by neither docs/{reg_file} nor docs/{trace_file}: {missing}"
