"""The one error type the compiler raises for bad input.

Everything a user can get wrong (file, op, dtype, shape, budget) ends in a
CompileError whose message fits on one line; the CLI prints it as
``error: <message>`` and exits with status 2.
"""


class CompileError(Exception):
    """A problem with the model or the options, explained in one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))
