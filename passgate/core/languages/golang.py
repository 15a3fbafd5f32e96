"""Go with Debian's golang-go (1.19), built as a plain program: no module download, no testify.

HumanEval-X's tests are `assert.Equal(expected, actual)` from testify (reflect.DeepEqual: exact
types, a nil slice unequal to an empty one); MultiPL-E's build a table of `{actual, expected}` and
compare `fmt.Sprintf("%v", ...)` texts. Either way the test function becomes a plain function
called from a generated main, each site reporting its `actual`; testify (the dataset's vendor
archive) is needed only by the dataset's own program.
"""

from __future__ import annotations

import re
from pathlib import Path

from .compare import Compare
from .toolchain import Toolchain
from .literals import LiteralError, LiteralSyntax, Reader
from .runtimes import go as go_runtime
from .scan import Dialect, find_calls, find_top, line_of, matching, split_top, strip_parens, tokenize
from .spec import REPORT_FD, Integrity, LanguageSpec, Program, Site, SourceFile, SplitTest, TestInput
from .splitting import Assertion, Cut, Unsplittable, actual_call, in_process, split_calls, wrapped_call
from .values import Char, Map

DIALECT = Dialect(quotes='"`', char_quote=True)
GO = Toolchain("go", ("golang-go",))
# CodeGeeX's runner imports these when the completion names them (utils.py IMPORT_HELPER["go"])
IMPORT_HELPER = ("math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort", "math/rand", "crypto/md5")
# a use of each package the harness may no longer name, so Go's unused-import check stays quiet
BLANK_USE = {"fmt": "fmt.Sprint", "testing": "testing.Verbose", "math": "math.Abs", "strings": "strings.Contains",
             "strconv": "strconv.Itoa", "sort": "sort.Ints", "time": "time.Now", "bytes": "bytes.Equal",
             "regexp": "regexp.MustCompile", "math/rand": "rand.Intn", "crypto/md5": "md5.Sum"}
# GOMAXPROCS=1 and -p=1: the go command and the compiler start threads with every core they see, each
# with a stack reservation; under the candidate's address-space limit, a loaded machine made some of
# those thread starts fail (`runtime/cgo: pthread_create failed`), a compile error no candidate caused
ENV = (("GOCACHE", "{scratch}/.gocache"), ("GOFLAGS", "-mod=mod -p=1"), ("GOPROXY", "off"), ("GO111MODULE", "on"),
       ("CGO_ENABLED", "0"), ("GOTOOLCHAIN", "local"), ("GOMAXPROCS", "1"))


def _go_type(reader: Reader) -> str:
    """Consume a Go type (`[]int`, `[][]string`, `map[string]int`, `[2]interface{}`); its text."""
    parts = []
    while True:
        tok = reader.peek()
        if tok == "[":
            parts.append(reader.take().text)
            while reader.peek() != "]":
                parts.append(reader.take().text)
            parts.append(reader.take("]").text)
        elif tok == "map":
            parts.append(reader.take().text)
            parts.append(reader.take("[").text)
            parts.append(_go_type(reader))
            parts.append(reader.take("]").text)
        elif tok in ("interface", "struct"):
            parts.append(reader.take().text)
            reader.take("{")
            reader.take("}")
            parts.append("{}")
            return "".join(parts)
        elif tok == "*":
            parts.append(reader.take().text)
        else:
            parts.append(reader.take().text)
            return "".join(parts)


class GoReader(Reader):
    """Go composite literals: the type first, then the elements (inner types may be elided)."""

    def primary(self):
        if self.peek() in ("[", "map"):
            return self.composite(_go_type(self))
        if self.peek() in ("float64", "float32", "int", "int64", "int32", "string", "rune", "byte") \
                and self.peek(1) == "(":
            kind = self.take().text
            self.take("(")
            value = self.expr()
            self.take(")")
            return _convert(kind, value)
        value = super().primary()
        return ord(value.ch) if isinstance(value, Char) else value

    def composite(self, go_type: str):
        self.take("{")
        if go_type.startswith("map["):
            entries = []
            while self.peek() != "}":
                key = self.element(go_type)
                self.take(":")
                entries.append((key, self.element(go_type)))
                if self.peek() != "}":
                    self.take(",")
            self.take("}")
            return Map(tuple(entries))
        items = []
        while self.peek() != "}":
            items.append(self.element(go_type))
            if self.peek() != "}":
                self.take(",")
        self.take("}")
        return items

    def element(self, outer: str):
        elem = outer.split("]", 1)[1] if outer.startswith("[") else outer
        if self.peek() == "{":
            return self.composite(elem)
        return _convert(elem, self.expr())


def _convert(go_type: str, value):
    if go_type.startswith("float") and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if go_type in ("int", "int64", "int32") and isinstance(value, float):
        return int(value)
    return value


SYNTAX = LiteralSyntax(constants={"true": True, "false": False, "nil": None}, brace_list=list, int_division="trunc")


def read_go(tokens, lo: int, hi: int):
    return GoReader(tokens, lo, hi, SYNTAX).read()


def _pair(tokens, expected, actual) -> Cut:
    try:
        return Cut(actual_call(tokens, actual), read_go(tokens, *strip_parens(tokens, *expected)), Compare("eq"))
    except LiteralError:
        return Cut(actual_call(tokens, expected), read_go(tokens, *strip_parens(tokens, *actual)), Compare("eq"))


def _tolerance(tokens, lo: int, hi: int) -> Cut | None:
    """`math.Abs(F(x) - e) < tol` (asserted equal to true)."""
    less = find_top(tokens, lo, hi, ("<", "<="))
    inner = wrapped_call(tokens, lo, less[0], ("math", ".", "Abs")) if len(less) == 1 else None
    if inner is None:
        return None
    how = Compare("approx", float(read_go(tokens, less[0] + 1, hi)), inclusive=tokens[less[0]].text == "<=")
    for sign_at in reversed(find_top(tokens, *inner, ("-", "+"))):
        try:
            value = read_go(tokens, sign_at + 1, inner[1])
            return Cut(actual_call(tokens, (inner[0], sign_at)), value if tokens[sign_at].text == "-" else -value, how)
        except (LiteralError, TypeError):
            continue
    return Cut(actual_call(tokens, inner), 0, how)


def _cut_testify(tokens, a: Assertion) -> Cut:
    method = tokens[a.start + 2].text
    args = split_top(tokens, a.open_at + 1, a.close_at, ",")[:2 if tokens[a.start + 2].text == "Equal" else 1]
    if method == "Equal" and len(args) == 2:
        expected, actual = (strip_parens(tokens, *r) for r in args)
        if tokens[expected[0]].text == "true" and expected[1] - expected[0] == 1:
            cut = _tolerance(tokens, *actual)
            if cut:
                return cut
        return _pair(tokens, args[0], args[1])
    if method in ("True", "False") and len(args) == 1:
        return Cut(actual_call(tokens, args[0]), method == "True", Compare("truthy"))
    raise LiteralError(f"assert.{method} with {len(args)} arguments is not split")


def _test_function(tokens) -> tuple[int, int, int]:
    """(index of `func`, of its name, of its body's `{`) of the test function."""
    for k in range(len(tokens) - 2):
        if tokens[k].text == "func" and tokens[k + 1].text.startswith("Test") and tokens[k + 2].text == "(":
            body = matching(tokens, k + 2) + 1
            return k, k + 1, body
    raise Unsplittable("no test function")


def _plain_function(text: str, n_sites: int, uses: str) -> str:
    """The test function without its testing.T, called from a new main that then reports the end."""
    tokens = tokenize(text, DIALECT)
    func_at, name_at, _ = _test_function(tokens)
    params = (name_at + 1, matching(tokens, name_at + 1))
    name = tokens[name_at].text
    text = text[:tokens[params[0]].start] + "()" + text[tokens[params[1]].end:]
    return f"{text}\n{uses}\nfunc main() {{\n\t{name}()\n\t__pgEnd({n_sites})\n}}\n"


def _blank_uses(packages) -> str:
    return "\n".join(f"var _ = {BLANK_USE[p]}" for p in packages if p in BLANK_USE)


def split_humaneval_x(test: TestInput) -> SplitTest:
    src = test.test
    tokens = tokenize(src, DIALECT)
    calls = [Assertion(*c) for name in ("Equal", "True", "False", "InDelta", "NotEqual")
             for c in find_calls(tokens, ("assert", ".", name))]
    calls.sort(key=lambda a: a.start)
    setup = imports_of(test.extras.get("test_setup", ""))
    uses = _blank_uses(p for p in setup if p not in ("testing", "github.com/stretchr/testify/assert"))

    def finish(text: str, n: int) -> str:
        text = re.sub(r"\n[ \t]*assert\s*:=\s*assert\.New\(t\)[ \t]*", "\n", text, count=1)
        return _plain_function(text, n, uses)
    return split_calls(src, tokens, calls, lambda a: _cut_testify(tokens, a), _report, finish)


def split_multipl_e(test: TestInput) -> SplitTest:
    """MultiPL-E's table: each `{ actual: X, expected: E }` a site; the loop that compared them goes."""
    src = test.test
    tokens = tokenize(src, DIALECT)
    table = next((k for k in range(len(tokens) - 3) if tokens[k].text == "tests" and tokens[k + 1].text == ":="), None)
    if table is None:
        raise Unsplittable("no `tests := []test{...}` table")
    open_at = next(k for k in range(table, len(tokens)) if tokens[k].text == "{")
    close_at = matching(tokens, open_at)
    rows = [r for r in split_top(tokens, open_at + 1, close_at, ",") if r[0] < r[1]]
    loop = next((k for k in range(close_at, len(tokens)) if tokens[k].text == "for"), None)
    if loop is None:
        raise Unsplittable("no comparison loop after the table")
    loop_end = matching(tokens, next(k for k in range(loop, len(tokens)) if tokens[k].text == "{"))
    lines = []
    sites = []
    for index, (lo, hi) in enumerate(rows):
        fields = _row_fields(tokens, lo, hi)
        sites.append(_site(src, tokens, index, lo, hi, fields))
        lines.append(f"\t__pgReportV({index}, {src[tokens[fields['actual'][0]].start:tokens[fields['actual'][1] - 1].end]})")
    text = src[:tokens[table].start] + "\n".join(lines) + "\n" + src[tokens[loop_end].end:]
    harness = _plain_function(text, len(sites), _blank_uses(imports_of(test.prompt)))
    return SplitTest(Integrity.OUTSIDE, harness, tuple(sites))


def _row_fields(tokens, lo: int, hi: int) -> dict[str, tuple[int, int]]:
    if tokens[lo].text != "{" or matching(tokens, lo) != hi - 1:
        raise Unsplittable("a table row that is not `{ actual: ..., expected: ... }`")
    fields = {}
    for a, b in split_top(tokens, lo + 1, hi - 1, ","):
        if a < b:
            if tokens[a + 1].text != ":":
                raise Unsplittable("a table row field without a name")
            fields[tokens[a].text] = (a + 2, b)
    if set(fields) != {"actual", "expected"}:
        raise Unsplittable("a table row without actual and expected")
    actual_call(tokens, fields["actual"])
    return fields


def _site(src, tokens, index, lo, hi, fields):
    try:
        expected = read_go(tokens, *strip_parens(tokens, *fields["expected"]))
    except LiteralError as exc:
        raise Unsplittable(f"line {line_of(src, tokens[lo].start)}: {exc}") from exc
    return Site(index, line_of(src, tokens[lo].start), " ".join(src[tokens[lo].start:tokens[hi - 1].end].split()),
                expected, Compare("go_sprint_v"))


def _report(index: int, actual: str) -> str:
    return f"__pgReport({index}, {actual})"


def split(test: TestInput) -> SplitTest:
    try:
        if test.dataset == "humaneval-x":
            return split_humaneval_x(test)
        return split_multipl_e(test)
    except (Unsplittable, LiteralError, StopIteration) as exc:
        return in_process(test.test, str(exc) or "an unexpected test shape")


def imports_of(source: str) -> list[str]:
    """Import paths of a Go source's import declarations."""
    paths = []
    for block in re.findall(r"import\s*\(([^)]*)\)", source):
        paths += re.findall(r'"([^"]+)"', block)
    paths += re.findall(r'import\s+"([^"]+)"', source)
    return paths


def _import_block(paths) -> str:
    return "import (\n" + "".join(f'    "{p}"\n' for p in paths) + ")\n" if paths else ""


def _used_helpers(code: str, exclude=()) -> list[str]:
    return [p for p in IMPORT_HELPER if p not in exclude and p.split("/")[-1] + "." in code]


def runtime() -> str:
    return go_runtime.SOURCE.replace("os.NewFile(FD,", f"os.NewFile({REPORT_FD},")


GO_MOD = "module pg\n\ngo 1.19\n"


def program(test: TestInput, completion: str, split_test: SplitTest) -> Program:
    if not split_test.sites:
        return original(test, completion)
    if test.dataset == "humaneval-x":
        prompt = test.prompt.replace(test.extras.get("import", "") or "\0", "")
        setup = [p for p in imports_of(test.extras.get("test_setup", ""))
                 if p not in ("testing", "github.com/stretchr/testify/assert")]
        paths = setup + _used_helpers(completion, exclude=setup)
        text = "package main\n\n" + _import_block(paths) + "\n" + prompt + completion + "\n" + split_test.harness
    else:
        text = re.sub(r"^package\s+\w+", "package main", test.prompt, count=1) + completion + "\n" + split_test.harness
    files = (SourceFile("go.mod", GO_MOD), SourceFile("main.go", text), SourceFile("pg_report.go", runtime()))
    return Program(files, ("go", "build", "-o", "main", "."), ("./main",), ENV)


# `go test` as two steps: the test binary compiled (a compile error is its own class), then run
TEST_BINARY = ("go", "test", "-c", "-o", "main.test", "main_test.go")


def original(test: TestInput, completion: str) -> Program:
    """HumanEval-X: CodeGeeX's construction (test_setup, the helper packages the code names, the
    prompt without its imports, the code, the test) as main_test.go beside the dataset's go.mod,
    go.sum and vendored testify; MultiPL-E: prompt + completion + tests. Both as `go test` does it:
    the test binary compiled, then run; its exit status decides."""
    if test.dataset == "humaneval-x":
        setup = test.extras.get("test_setup", "")
        prompt = test.prompt.replace(test.extras.get("import", "") or "\0", "")
        others = _used_helpers(completion, exclude=tuple(p for p in IMPORT_HELPER if p in setup))
        text = setup + "\n" + _import_block(others) + "\n" + prompt + completion + "\n" + test.test
        evaluation = Path(test.extras["evaluation_dir"])
        files = (SourceFile("main_test.go", text), SourceFile("go.mod", (evaluation / "go.mod").read_text()),
                 SourceFile("go.sum", (evaluation / "go.sum").read_text()))
        env = tuple((k, v) for k, v in ENV if k != "GOFLAGS") + (("GOFLAGS", "-mod=vendor -p=1"),)
        return Program(files, TEST_BINARY, ("./main.test",), env, archives=(("vendor.tar.gz", "."),))
    text = test.prompt + completion + "\n" + test.test
    return Program((SourceFile("main_test.go", text),), TEST_BINARY, ("./main.test",),
                   tuple((k, v) for k, v in ENV if k != "GOFLAGS") + (("GO111MODULE", "off"),))


def support_files(test: TestInput) -> dict[str, bytes]:
    """The dataset's vendored testify, for HumanEval-X's own program."""
    if test.dataset != "humaneval-x" or "evaluation_dir" not in test.extras:
        return {}
    return {"vendor.tar.gz": (Path(test.extras["evaluation_dir"]) / "vendor.tar.gz").read_bytes()}


GOLANG = LanguageSpec(
    name="go", title="Go", toolchain=GO, fence_tags=("go", "golang"), split=split, program=program,
    original=original, runtime=runtime, version_argv=("go", "version"),
    default_stop_tokens=("\nfunc", "struct", "\n// "), support=support_files)

