"""Cross-references the Kubernetes manifests, which schema validation cannot: every probe names a port its
container declares, every Deployment's selector matches its pod template, every Service and
PodDisruptionBudget selects a workload, every Service's targetPort exists, every *_FILE setting points into a
mounted Secret volume under a key the example Secret holds, and every image is the same.
Usage: python check.py deploy/k8s   (scripts/deploy-checks runs it with kubernetes-validate's PyYAML)."""

import glob
import os
import sys

import yaml


def main(directory):
    docs = []
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
        if os.path.basename(path) == "kustomization.yaml":
            continue
        docs += [(path, d) for d in yaml.safe_load_all(open(path)) if d]
    errors = []
    kinds = {}
    for path, d in docs:
        kinds.setdefault(d["kind"], []).append((path, d))

    secret_keys = set()
    for _, s in kinds.get("Secret", []):
        secret_keys |= set(s.get("stringData", {})) | set(s.get("data", {}))

    workloads = []  # (name, pod labels, containers, volumes)
    for path, d in kinds.get("Deployment", []) + kinds.get("Job", []):
        name = d["metadata"]["name"]
        tmpl = d["spec"]["template"]
        labels = tmpl["metadata"].get("labels", {})
        sel = d["spec"].get("selector", {}).get("matchLabels")
        if sel is not None and any(labels.get(k) != v for k, v in sel.items()):
            errors.append(f"{path}: {name}: selector {sel} does not match the pod labels {labels}")
        spec = tmpl["spec"]
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        for c in spec["containers"]:
            ports = {p["name"]: p["containerPort"] for p in c.get("ports", []) if "name" in p}
            numbers = {p["containerPort"] for p in c.get("ports", [])}
            for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                port = c.get(probe, {}).get("httpGet", {}).get("port")
                if port is not None and port not in ports and port not in numbers:
                    errors.append(f"{path}: {name}/{c['name']}: {probe} port {port} is not a container port")
            sc = c.get("securityContext", {})
            if sc.get("allowPrivilegeEscalation") is not False or sc.get("readOnlyRootFilesystem") is not True:
                errors.append(f"{path}: {name}/{c['name']}: no privilege escalation and a read-only root, please")
            mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
            for env in c.get("env", []):
                if env["name"].endswith("_FILE"):
                    value = env["value"]
                    base, key = os.path.dirname(value), os.path.basename(value)
                    vol = volumes.get(mounts.get(base, ""), {})
                    if "secret" not in vol:
                        errors.append(f"{path}: {name}: {env['name']}={value} is not in a mounted Secret")
                    elif key not in secret_keys:
                        errors.append(f"{path}: {name}: {env['name']}: the Secret has no key {key!r}")
            workloads.append((name, labels, c, ports))
            if c["image"] != workloads[0][2]["image"]:
                errors.append(f"{path}: {name}: image {c['image']} differs from {workloads[0][2]['image']}")

    for path, svc in kinds.get("Service", []):
        sel = svc["spec"].get("selector", {})
        matched = [w for w in workloads if all(w[1].get(k) == v for k, v in sel.items())]
        if not matched:
            errors.append(f"{path}: Service {svc['metadata']['name']} selects no workload")
        for p in svc["spec"]["ports"]:
            t = p.get("targetPort", p["port"])
            if not any(t in w[3] or t in w[3].values() for w in matched):
                errors.append(f"{path}: Service {svc['metadata']['name']}: targetPort {t} is not a container port")
    for path, pdb in kinds.get("PodDisruptionBudget", []):
        sel = pdb["spec"]["selector"]["matchLabels"]
        if not any(all(w[1].get(k) == v for k, v in sel.items()) for w in workloads):
            errors.append(f"{path}: PodDisruptionBudget {pdb['metadata']['name']} selects no workload")

    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f"{len(docs)} resources cross-referenced: probes, selectors, services, budgets, secret files, image")


if __name__ == "__main__":
    main(sys.argv[1])
