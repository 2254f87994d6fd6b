"""The `advisor` console script: a Ctrl-C while the program is still importing ends with one line, not a traceback.

`advisor.cli.main` handles KeyboardInterrupt once it runs; the import of the CLI itself (argparse, json, the error
types) happens before that, so this module, which imports only ``sys``, wraps it. The ~15 ms the Python interpreter
and pip's wrapper script spend starting up before any advisor code runs are outside what a package can catch.
"""

import sys


def main() -> int:
    try:
        from advisor.cli import leave, main as cli_main, tune_process, tuning_wanted
    except KeyboardInterrupt:
        try:
            sys.stderr.write("advisor: interrupted\n")
        except (OSError, ValueError):
            pass
        return 130
    if tuning_wanted():  # the program's own process: tuned for one short run (ADVISOR_PROCESS_TUNING=0 opts out)
        tune_process()
    return leave(cli_main())
