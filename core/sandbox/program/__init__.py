"""The sandbox worker program, in parts: sent into each container as one source text (see
`docker_runner.PROGRAM_PARTS`), never run by the engine itself. Only `codec` is also used here."""
