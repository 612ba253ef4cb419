"""A lazy module is imported when one of its attributes is first read, not before."""

import subprocess
import sys


def test_the_module_is_imported_on_first_attribute_read():
    code = ("import sys; from vsim.core.lazy_import import lazy_module; m = lazy_module('colorsys'); "
            "print('colorsys' in sys.modules, m.rgb_to_hsv(1, 0, 0), 'colorsys' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["False", "(0.0,", "1.0,", "1)", "True"]
