"""Hardware configs: a validated ``HwConfig`` behind a small Python class.

A ``Config`` is immutable. ``with_changes`` takes keys of the parameter
table ``isa/config.def`` ("gemm.block_in", "dram.latency_cycles",
"clock_mhz"; ``tessera.params()`` lists them), applies them to the canonical
JSON and parses the result again, so the limits are exactly those
``isa/config.cc`` checks: an unknown key or a value out of range raises
``TesseraError`` naming the key.
"""

import json

from tessera import _core


def _set_dotted(tree, key, value, source):
    parts = key.split(".")
    node = tree
    for i, part in enumerate(parts[:-1]):
        child = node.get(part)
        if child is None:
            child = node[part] = {}  # unknown section: the parser names the key
        if not isinstance(child, dict):
            from tessera.errors import TesseraError

            raise TesseraError(f"{source}: key '{key}': '{'.'.join(parts[:i + 1])}' is not a section",
                               "invalid argument")
        node = child
    node[parts[-1]] = value


def params():
    """The config parameters, one dict per row of isa/config.def: key, kind
    ("int", "pow2", "real"), lo, hi, multiple_of, unit, effect ("behaviour"
    or "timing"), summary."""
    return _core.params()


def check_keys(keys, source):
    """Raises TesseraError naming the first key that is not a parameter."""
    for key in keys:
        if not _core.is_param(key):
            from tessera.errors import TesseraError

            raise TesseraError(f"{source}: key '{key}': unknown key (the parameters are isa/config.def's: "
                               f"{', '.join(p['key'] for p in params())})", "invalid argument")


class Config:
    """A validated hardware config (``configs/*.json``)."""

    def __init__(self, hw):
        self._hw = hw  # _core.HwConfig

    @classmethod
    def load(cls, path):
        return cls(_core.load_config(str(path)))

    @classmethod
    def from_json(cls, text, source="<json>"):
        return cls(_core.parse_config(text, source))

    @classmethod
    def from_dict(cls, tree, source="<dict>"):
        return cls.from_json(json.dumps(tree), source)

    # --- reading -----------------------------------------------------------
    @property
    def name(self):
        return self._hw.name

    @property
    def clock_mhz(self):
        return self._hw.clock_mhz

    @property
    def macs_per_cycle(self):
        return self._hw.macs_per_cycle

    @property
    def isa_fingerprint(self):
        return self._hw.isa_fingerprint

    def to_json(self):
        """Canonical JSON of the written fields (round-trips)."""
        return self._hw.to_json()

    def to_dict(self):
        return json.loads(self._hw.to_json())

    def params(self):
        """Every parameter's value by key (isa/config.def): {"gemm.block_in": 16, ...}."""
        return self._hw.values()

    def __getitem__(self, key):
        params = self.params()
        if key not in params:
            raise KeyError(f"config '{self.name}' has no key '{key}'")
        return params[key]

    def describe(self):
        """Parameters, derived sizes and the ISA layout (``tessera config show``)."""
        return self._hw.describe()

    # --- deriving ----------------------------------------------------------
    def with_changes(self, changes, name=None):
        """A validated copy with ``changes`` ({dotted key: value}) applied."""
        tree = self.to_dict()
        source = f"config '{self.name}' with changes"
        check_keys(changes, source)
        for key, value in changes.items():
            _set_dotted(tree, key, value, source)
        if name is not None:
            tree["name"] = name
        return Config.from_json(json.dumps(tree), source)

    def __eq__(self, other):
        return isinstance(other, Config) and self.to_json() == other.to_json()

    def __hash__(self):
        return hash(self.to_json())

    def __repr__(self):
        return f"<tessera.Config '{self.name}' {self.to_dict()['gemm']}>"

    def __reduce__(self):  # pickles as its JSON (Dask ships configs to workers)
        return (Config.from_json, (self.to_json(), f"config '{self.name}'"))


def load_config(path):
    """Loads and validates a config file; raises TesseraError naming the key at fault."""
    return Config.load(path)
