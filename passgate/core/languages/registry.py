"""Languages by name: the specs passgate grades, and the ones it refuses with the reason.

The engine asks here and never branches on a language's name; a new language is one module and
one line below.
"""

from __future__ import annotations

from ..errors import ConfigError
from .cpp import CPP
from .golang import GOLANG
from .java import JAVA
from .javascript import JAVASCRIPT, TYPESCRIPT
from .rust import RUST_SPEC
from .scripting import IN_PROCESS_LANGUAGES
from .shell import SHELL
from .spec import LanguageSpec, Refusal

SPECS: dict[str, LanguageSpec] = {s.name: s for s in (JAVASCRIPT, TYPESCRIPT, CPP, JAVA, GOLANG, RUST_SPEC, SHELL,
                                                      *IN_PROCESS_LANGUAGES)}

REFUSED: dict[str, Refusal] = {r.name: r for r in (
    Refusal("jl", "Julia", "Debian bookworm has no julia package (it left Debian before bookworm), so no "
                           "pinned Julia image can be built from the Debian mirror."),
    Refusal("lua", "Lua", "MultiPL-E's Lua tests require the luaunit module, which Debian bookworm does not "
                          "package, so its tests cannot run in a pinned image built from the Debian mirror."),
    Refusal("swift", "Swift", "Debian bookworm packages no Swift compiler (its `swift` package is OpenStack's "
                              "object store), so no pinned Swift image can be built from the Debian mirror."),
)}

ALIASES = {"go_test.go": "go", "javascript": "js", "typescript": "ts", "c++": "cpp", "rust": "rs", "python": "py", "bash": "sh",
           "csharp": "cs", "c#": "cs", "ruby": "rb", "perl": "pl", "racket": "rkt", "julia": "jl", "scala": "scala",
           "php": "php", "d": "d", "r": "r"}


def spec_for(name: str) -> LanguageSpec:
    """The spec of a language, or a ConfigError whose sentence says why it cannot be graded."""
    key = ALIASES.get(name.lower(), name.lower())
    if key in SPECS:
        return SPECS[key]
    if key in REFUSED:
        raise ConfigError(f"{REFUSED[key].title} cannot be graded here: {REFUSED[key].reason}", field="language")
    known = ", ".join(sorted(SPECS))
    raise ConfigError(f"unknown language {name!r}; passgate grades {known}", field="language")
