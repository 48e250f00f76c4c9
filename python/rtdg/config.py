"""Run configs from Python dicts: the dict as TOML text, read by the same reader as a file."""

import atexit
import math
import os
import shutil
import tempfile

from ._rtdg import Config, Law

_law_dirs = []


def _cleanup():
    for d in _law_dirs:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup)


def _key(k):
    k = str(k)
    if k and all(c.isalnum() or c in "_-" for c in k):
        return k
    return _string(k)


def _string(s):
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append("\\u%04x" % ord(c))
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, os.PathLike):
        return _string(os.fspath(v))
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    if hasattr(v, "tolist"):  # numpy arrays and scalars
        return _value(v.tolist())
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"a config value must be a number, string, bool, list or dict, not {type(v).__name__}")


def _table_array(v):
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(x, dict) for x in v)


def _emit(table, path, lines):
    scalars = [(k, v) for k, v in table.items() if not isinstance(v, dict) and not _table_array(v)]
    for k, v in scalars:
        lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in table.items():
        name = path + [_key(k)]
        if isinstance(v, dict):
            lines.append("")
            lines.append("[" + ".".join(name) + "]")
            _emit(v, name, lines)
        elif _table_array(v):
            for item in v:
                lines.append("")
                lines.append("[[" + ".".join(name) + "]]")
                _emit(item, name, lines)


def toml_text(config):
    """toml_text(config: dict) -> str

    The dict as TOML: nested dicts become tables, lists of dicts arrays of tables ([[probe]])."""
    if not isinstance(config, dict):
        raise TypeError("toml_text takes a dict")
    lines = []
    _emit(config, [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def config_from_dict(config, base_dir=".", overrides=(), name="config"):
    """config_from_dict(config, base_dir=".", overrides=(), name="config") -> Config

    A run config from a dict with the keys of a config file (docs/config.md), e.g.
    {"law": {"file": "maxwell2d_tm.toml"}, "mesh": {"file": "square.geo"}, "time": {"final": 1.0}}.
    Relative paths are resolved against base_dir; errors name "<base_dir>/<name>.toml" and the
    line of the generated TOML. A law may be given as text instead of a file:
    {"law": {"text": "...the law file's contents..."}} (it is checked as rtdg.Law(text) does, and
    kept in a temporary file for the process's lifetime)."""
    config = dict(config)
    law = config.get("law")
    if isinstance(law, dict) and "text" in law:
        law = dict(law)
        text = law.pop("text")
        Law(text, f"<{name}: law.text>")  # the law's own errors, located in its text
        directory = tempfile.mkdtemp(prefix="rtdg-law-")
        _law_dirs.append(directory)
        path = os.path.join(directory, "law.toml")
        with open(path, "w") as f:
            f.write(text)
        law["file"] = path
        config["law"] = law
    file = os.path.join(os.path.abspath(os.fspath(base_dir)), name + ".toml")
    return Config.from_text(toml_text(config), file, list(overrides))
