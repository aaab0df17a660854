"""Pareto fronts over sweep records.

An objective is a record key to minimize ("latency_us"), or "key:max" to
maximize. A record is on the front when no other record is at least as good
on every objective and strictly better on one; records with a missing
objective are not candidates. Sort-and-filter: after sorting by the objective
vector, a record can only be dominated by one before it, and only by one
already on the front.
"""


def parse_objectives(objectives):
    """[(key, sign)] with sign +1 to minimize, -1 to maximize."""
    out = []
    for o in objectives:
        key, _, sense = o.partition(":")
        if sense not in ("", "min", "max"):
            raise ValueError(f"objective '{o}': expected KEY, KEY:min or KEY:max")
        out.append((key, -1.0 if sense == "max" else 1.0))
    return out


def _vector(record, objs):
    v = []
    for key, sign in objs:
        x = record.get(key)
        if x is None or x != x:  # missing or NaN
            return None
        v.append(sign * float(x))
    return tuple(v)


def dominates(a, b):
    """a dominates b (both minimized vectors)."""
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def pareto_front(records, objectives):
    """Indices (into ``records``) of the non-dominated records, in input order."""
    objs = parse_objectives(objectives)
    cands = [(v, i) for i, r in enumerate(records) if (v := _vector(r, objs)) is not None]
    cands.sort()
    front = []
    for v, i in cands:
        if not any(dominates(f, v) for f, _ in front):
            front.append((v, i))
    return sorted(i for _, i in front)
