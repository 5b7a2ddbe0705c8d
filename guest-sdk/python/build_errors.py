"""python3 build_errors.py -- componentize-py [ARGS...]

Runs componentize-py and, when it fails, reduces its report (the launcher's traceback, the
Rust error chain and backtrace) to what the author needs: the file, line and message of
the exception their code raised while the component was initialised, with the line
itself. componentize-py mounts the N-th ``--python-path`` folder as ``/N`` inside the
component; those names are mapped back to the folders given. A successful build passes
through untouched. The exit status is the tool's.

Not part of the SDK a hook imports: a build helper, never bundled into the component.
"""

import os
import re
import subprocess
import sys

FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')
ERROR = re.compile(r"^(?P<kind>[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)|error|Error)\b:?(?P<rest>.*)$")


def mounts(command):
    """``/N`` -> the N-th ``--python-path`` folder of the command."""
    found = {}
    for index, arg in enumerate(command):
        value = None
        if arg in ("--python-path", "-p") and index + 1 < len(command):
            value = command[index + 1]
        elif arg.startswith("--python-path="):
            value = arg.split("=", 1)[1]
        if value is not None:
            found[f"/{len(found)}"] = value
    return found


def host_path(path, folders):
    head, _, tail = path.lstrip("/").partition("/")
    folder = folders.get(f"/{head}")
    if folder is None or not tail:
        return path
    return os.path.normpath(os.path.join(folder, tail))


def source_line(path, line):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, start=1):
                if number == line:
                    return text.strip()
    except OSError:
        pass
    return ""


def reduce(text, folders):
    """The author's view of a componentize-py failure."""
    lines = text.splitlines()
    # The component's own traceback follows the launcher's ("AssertionError: Traceback").
    starts = [i for i, l in enumerate(lines) if l.rstrip().endswith("Traceback (most recent call last):")]
    inner = lines[starts[-1] + 1 :] if starts else []
    frames, message = [], None
    for line in inner:
        match = FRAME.match(line)
        if match:
            frames.append((match["file"], int(match["line"])))
            continue
        if not line.startswith(" ") and ERROR.match(line):
            message = line.strip()
            break
    # The innermost frame in a --python-path folder outside the SDK, else the innermost
    # in one; none at all is the launcher's own traceback (a tool error, not the code's).
    mapped = [f for f in frames if re.match(r"^/\d+/", f[0])]
    authored = [f for f in mapped if "/hookhost_guest/" not in f[0]] or mapped
    if authored and message:
        path, line = authored[-1]
        shown = host_path(path, folders)
        return f"{shown}:{line}: {message}\n    {source_line(shown, line)}"
    # Anything else: the tool's message, without the launcher's traceback and the backtrace.
    kept, in_frame = [], False
    for line in lines:
        if line.startswith("Stack backtrace:"):
            break
        if line.startswith("Traceback") or FRAME.match(line):
            in_frame = True
            continue
        if in_frame and line.startswith("    "):
            continue  # a frame's code line and its ^^^ marks
        in_frame = False
        if line.strip():
            kept.append(re.sub(r"^AssertionError: ", "", line))
    return "\n".join(kept[:12]) or text


def main(argv):
    command = argv[argv.index("--") + 1 :] if "--" in argv else argv
    if not command:
        print("usage: python3 build_errors.py -- componentize-py [ARGS...]", file=sys.stderr)
        return 64
    env = dict(os.environ, RUST_BACKTRACE="0", RUST_LIB_BACKTRACE="0")
    try:
        run = subprocess.run(command, stderr=subprocess.PIPE, env=env, text=True, errors="replace")
    except OSError as err:
        print(f"cannot run {command[0]}: {err}", file=sys.stderr)
        return 127
    if run.returncode == 0:
        sys.stderr.write(run.stderr)
    else:
        print(reduce(run.stderr, mounts(command)), file=sys.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
