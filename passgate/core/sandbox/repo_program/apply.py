"""Strict unified-diff application over an in-memory tree {path: bytes}: every context and removed
line must match at the line the hunk names (no offset, no fuzz), paths stay inside the tree. A
patch that GNU patch would place with an offset is refused: the model named the lines it changes."""


class PatchError(Exception):
    """The patch does not apply; the message says which file, hunk and line."""


class _Hunk:
    def __init__(self, old_start, old_len, new_start, new_len):
        self.old_start, self.old_len, self.new_start, self.new_len = old_start, old_len, new_start, new_len
        self.lines = []            # (tag, text with its line ending)

    def reversed(self):
        hunk = _Hunk(self.new_start, self.new_len, self.old_start, self.old_len)
        swap = {"-": "+", "+": "-", " ": " "}
        hunk.lines = [(swap[tag], text) for tag, text in self.lines]
        return hunk


class _FilePatch:
    def __init__(self, old_path, new_path):
        self.old_path, self.new_path, self.hunks = old_path, new_path, []

    def reversed(self):
        fp = _FilePatch(self.new_path, self.old_path)
        fp.hunks = [h.reversed() for h in self.hunks]
        return fp


def _strip_path(raw, lineno):
    path = raw.split("\t", 1)[0].strip()
    if path == "/dev/null":
        return None
    if path.startswith(("a/", "b/")):
        path = path[2:]
    parts = path.split("/")
    if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise PatchError(f"line {lineno}: path {raw.strip()!r} is not inside the repository")
    return path


def _hunk_header(line, lineno):
    try:
        ranges = line.split("@@")[1].split()
        old, new = ranges[0][1:].split(","), ranges[1][1:].split(",")
        return _Hunk(int(old[0]), int(old[1]) if len(old) > 1 else 1,
                     int(new[0]), int(new[1]) if len(new) > 1 else 1)
    except (IndexError, ValueError):
        raise PatchError(f"line {lineno}: malformed hunk header {line.strip()!r}") from None


def _read_hunk(hunk, lines, i):
    old_left, new_left = hunk.old_len, hunk.new_len
    while old_left > 0 or new_left > 0:
        if i >= len(lines):
            raise PatchError("the patch ends inside a hunk")
        line = lines[i]
        tag = line[:1] if line not in ("\n", "\r\n") else " "
        if tag not in (" ", "-", "+"):
            raise PatchError(f"line {i + 1}: hunk has fewer lines than its header says")
        text = line[1:] if line not in ("\n", "\r\n") else line
        if i + 1 < len(lines) and lines[i + 1].startswith("\\"):
            text = text.rstrip("\r\n")
            i += 1
        hunk.lines.append((tag, text))
        old_left -= tag in (" ", "-")
        new_left -= tag in (" ", "+")
        i += 1
    if old_left < 0 or new_left < 0:
        raise PatchError(f"line {i}: hunk has more lines than its header says")
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    return i


def parse_patch(text):
    """The file patches of a unified diff; PatchError when it is malformed or empty."""
    lines = text.splitlines(keepends=True)
    files, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            fp = _FilePatch(_strip_path(line[4:], i + 1), _strip_path(lines[i + 1][4:], i + 2))
            if fp.old_path is None and fp.new_path is None:
                raise PatchError(f"line {i + 1}: both sides are /dev/null")
            files.append(fp)
            i += 2
            while i < len(lines) and lines[i].startswith("@@"):
                hunk = _hunk_header(lines[i], i + 1)
                i = _read_hunk(hunk, lines, i + 1)
                fp.hunks.append(hunk)
            if not fp.hunks:
                raise PatchError(f"line {i}: {fp.new_path or fp.old_path} has no hunks")
            continue
        if line.startswith("@@"):
            raise PatchError(f"line {i + 1}: hunk outside a file header")
        i += 1
    if not files:
        raise PatchError("not a unified diff: no file headers (--- / +++)")
    return files


def _apply_hunks(path, old_lines, hunks):
    out, pos = [], 0
    for n, hunk in enumerate(hunks, 1):
        start = hunk.old_start - 1 if hunk.old_len else hunk.old_start
        if start < pos:
            raise PatchError(f"{path}: hunk {n} overlaps the one before it")
        expected = [text for tag, text in hunk.lines if tag in (" ", "-")]
        found = old_lines[start:start + len(expected)]
        if found != expected:
            bad = next((k for k, (a, b) in enumerate(zip(found, expected)) if a != b), min(len(found), len(expected)))
            raise PatchError(f"{path}: hunk {n} does not match at line {start + bad + 1}")
        out += old_lines[pos:start]
        out += [text for tag, text in hunk.lines if tag in (" ", "+")]
        pos = start + len(expected)
    return out + old_lines[pos:]


def _decode(path, data):
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        raise PatchError(f"{path}: not UTF-8 text; binary files cannot be patched") from None


def apply_patch(tree, text, reverse=False):
    """(new tree, touched paths). The input tree is not changed."""
    out = dict(tree)
    touched = []
    for fp in parse_patch(text):
        fp = fp.reversed() if reverse else fp
        if fp.old_path is None:
            if fp.new_path in out:
                raise PatchError(f"{fp.new_path}: the patch creates it, but it already exists")
            old = []
        else:
            if fp.old_path not in out:
                raise PatchError(f"{fp.old_path}: no such file in the repository")
            old = _decode(fp.old_path, out[fp.old_path])
        new = _apply_hunks(fp.new_path or fp.old_path, old, fp.hunks)
        if fp.old_path is not None:
            del out[fp.old_path]
        if fp.new_path is not None:
            if fp.new_path in out:
                raise PatchError(f"{fp.new_path}: the patch renames onto an existing file")
            out[fp.new_path] = "".join(new).encode("utf-8")
        elif new:
            raise PatchError(f"{fp.old_path}: a deletion leaves lines behind")
        touched.append(fp.new_path or fp.old_path)
    return out, touched
