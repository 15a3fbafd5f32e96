"""Display names of the languages by registry key: plain data the report and the console read
without importing the specs (and, through them, the images)."""

TITLES = {"js": "JavaScript", "ts": "TypeScript", "cpp": "C++", "java": "Java", "go": "Go", "rs": "Rust",
          "sh": "Bash", "rb": "Ruby", "php": "PHP", "pl": "Perl", "r": "R", "rkt": "Racket", "d": "D", "cs": "C#",
          "scala": "Scala", "jl": "Julia", "lua": "Lua", "swift": "Swift"}


def title(name: str) -> str:
    return TITLES.get(name, name)
