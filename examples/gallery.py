"""What every gallery program shares: its command line (--device makes a
Tack device the default, --test runs the program's check instead) and its
ending (the picture written to examples/out/NAME.png, a summary line, then
the picture's path, the last line, which run_all.py reads)."""

import argparse
from pathlib import Path

import tack

from png import write_png

OUT_DIR = Path(__file__).resolve().parent / "out"


def arguments(doc, checks):
    """The parsed command line of a program described by `doc`, whose
    --test `checks` (said in its help) and exits."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", help="Tack device to run on (default: the CPU)")
    parser.add_argument("--test", action="store_true", help=f"{checks} and exit")
    args = parser.parse_args()
    if args.device:
        tack.set_default_device(args.device)
    return args


def publish(name, pixels, summary):
    """Writes `pixels` (uint8, see png.encode_png) to examples/out/NAME.png,
    prints "NAME: summary" and the path; 0, the exit status."""
    path = write_png(OUT_DIR / f"{name}.png", pixels)
    print(f"{name}: {summary}")
    print(path)
    return 0


def report_test(name, failures, details):
    """Prints "NAME --test passed: details", or FAILED with the checks in
    `failures` that failed; the exit status."""
    verdict = "FAILED (" + ", ".join(failures) + ")" if failures else "passed"
    print(f"{name} --test {verdict}: {details}")
    return 1 if failures else 0
