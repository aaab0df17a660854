"""The one exception the library raises.

Every failure the C++ library reports as a Status (a bad config key, a model
that does not fit, a wrong input shape, a device fault) arrives here with the
library's message unchanged and its status code ("invalid argument",
"not found", "resource exhausted", ...). Pure Python so that it pickles across
Dask workers.
"""


class TesseraError(Exception):
    """A Status from the library: ``str(e)`` is its message, ``e.code`` its code."""

    def __init__(self, message, code="internal"):
        super().__init__(message, code)
        self.message = message
        self.code = code

    def __str__(self):
        return self.message
