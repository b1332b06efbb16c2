#!/usr/bin/env python3
"""sdk/README.md shows each example plugin's source whole: every fenced code
block that follows a line `<!-- file: PATH -->` must equal the file PATH
(relative to sdk/), and every source file under sdk/examples/ must be shown.

    readme_matches_examples.py SDK_DIR
"""
import pathlib
import re
import sys

sdk = pathlib.Path(sys.argv[1])
readme = (sdk / "README.md").read_text()
marked = re.findall(r"<!-- file: (\S+) -->\n+```[a-z]*\n(.*?)```\n", readme, re.S)
failures = []
shown = set()
for path, block in marked:
    shown.add(path)
    source = sdk / path
    if not source.is_file():
        failures.append(f"README.md shows {path}, which does not exist")
    elif source.read_text() != block:
        failures.append(f"README.md's copy of {path} differs from the file")
for source in sorted((sdk / "examples").glob("*/*.cpp")):
    path = source.relative_to(sdk).as_posix()
    if path not in shown:
        failures.append(f"README.md does not show {path}")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"README.md shows {len(shown)} example sources as they are")
