"""The console's colours for the gate's words: consequences, levels and boundary states."""

CONSEQUENCE_STYLE = {"release": "bold green", "canary": "bold yellow", "blocked": "bold red"}
LEVEL_STYLE = {"strong": "green", "adequate": "cyan", "weak": "yellow", "invalid": "red",
               "low": "green", "medium": "yellow", "high": "red", "critical": "bold red"}
STATUS_STYLE = {"secure": "green", "signed": "cyan", "unsigned": "yellow", "unjustified": "red",
                "refused": "red", "unverified": "yellow", "exceeds_policy": "bold red"}
