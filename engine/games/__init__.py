"""One module per game; importing this package registers them all."""

from . import belote  # noqa: F401, I001
from . import belote_contree  # noqa: F401, I001
from . import german_whist  # noqa: F401, I001
from . import tablanette, tablic  # noqa: F401
from . import trappola  # noqa: F401, I001
from . import tres  # noqa: F401, I001
from . import two_ten_jack  # noqa: F401, I001
from . import boonaken  # noqa: F401, I001
from . import thunee  # noqa: F401, I001
from . import botifarra  # noqa: F401, I001
