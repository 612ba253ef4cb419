"""Former home of the scenario stages, kept for one release so earlier scripts still import.

``vsim.scenario.load`` and ``vsim.scenario.simulate`` re-export what moved to
``vsim.build.load`` and ``vsim.engines.simulation``; importing them warns
(``DeprecationWarning``) with the new name. Nothing inside vsim imports this package.
"""

import warnings


def moved(old, new):
    """Warn once per import that module ``old`` is now ``new``."""
    warnings.warn(f"{old} moved to {new}; import it from there (the old name goes in the next release)",
                  DeprecationWarning, stacklevel=3)
