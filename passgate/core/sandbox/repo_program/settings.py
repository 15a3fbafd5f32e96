"""The grader's settings: the config the boot line sets on the package (`pgw.CONFIG`), and the
places under scratch that follow from it. Outside a container (the host importing this package)
there is no config and the defaults hold."""

import os
import sys

CONFIG = getattr(sys.modules.get(__package__), "CONFIG", None) or {}
UID = int(CONFIG.get("uid", 10001))        # the unprivileged uid the build and the tests run as
SCRATCH = CONFIG.get("scratch", "/tmp")
WORK = os.path.join(SCRATCH, "w")          # the candidate's: the repository and its home
REPO = os.path.join(WORK, "repo")
HOME = os.path.join(WORK, "home")
PG = os.path.join(SCRATCH, "pg")           # the grader's: the plugin, the pytest ini, the logs
