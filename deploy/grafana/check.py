"""Checks the Grafana dashboard: valid JSON, unique panel ids, every panel on the `datasource` variable, and
every series a panel queries named by the alert rules or the docs (a typo in a metric name shows as an empty
panel, never as an error, in Grafana).
Usage: python check.py dashboard.json alerts.yml doc.md...   (scripts/deploy-checks runs it)."""

import json
import re
import sys

FUNCTIONS = {
    "sum", "max", "min", "avg", "count", "rate", "increase", "irate", "histogram_quantile", "predict_linear",
    "absent", "by", "on", "ignoring", "without", "and", "or", "unless", "le", "group_left", "group_right",
    "topk", "bottomk", "delta", "deriv", "clamp_min", "clamp_max", "time", "vector", "scalar", "label_replace",
}


def series(expr):
    expr = re.sub(r'\{[^}]*\}', " ", expr)  # label matchers (and {__name__=~...}, checked by the rules' tests)
    expr = re.sub(r'\b(by|on|ignoring|without)\s*\([^)]*\)', " ", expr)  # grouping labels
    expr = re.sub(r'\[[^\]]*\]', " ", expr)  # ranges
    expr = re.sub(r'"[^"]*"', " ", expr)
    names = set(re.findall(r'\b[a-zA-Z_][a-zA-Z0-9_]*\b', expr)) - FUNCTIONS
    return {re.sub(r'_(bucket|sum|count)$', "", n) for n in names if not re.fullmatch(r'\d.*|e\d+', n)}


def main(dashboard, *references):
    d = json.load(open(dashboard))
    known = "\n".join(open(r).read() for r in references)
    errors, ids, count = [], set(), 0
    for p in d["panels"]:
        if p["id"] in ids:
            errors.append(f"panel id {p['id']} twice")
        ids.add(p["id"])
        if p["type"] == "row":
            continue
        if p.get("datasource", {}).get("uid") != "${datasource}":
            errors.append(f"{p['title']}: not on the datasource variable")
        for t in p["targets"]:
            count += 1
            for name in series(t["expr"]):
                if not re.search(r'\b' + re.escape(name) + r'\b', known):
                    errors.append(f"{p['title']}: {name} is named neither by the alert rules nor by the docs")
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f"{dashboard}: {len(ids)} panels, {count} queries, every series known")


if __name__ == "__main__":
    main(*sys.argv[1:])
