"""The sandbox worker program: these modules are sent into each container as data and imported there
by a small loader (docker_runner.BOOT) as the package `pgw`; standard library only. The engine
imports `split`, `statics`, `sites` and `values` too, for its own checks and tests."""
