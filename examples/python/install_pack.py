#!/usr/bin/env python3
"""install_pack.py ARCHIVE POLICY [DATA_DIR]: a short installer over the
packsign Python binding.

It verifies the signed ARCHIVE (its .sig beside it) against the trust
policy POLICY, shows what the pack may do and, for an upgrade, what changed
since the installed version, asks on the terminal (only when standard
input is one; otherwise it refuses: a pipeline passes consent explicitly,
e.g. packsign.install(..., accept=[...])), then installs into DATA_DIR
(default: packsign's data directory).  Exit 0 installed, 1 refused, 2
failed, as packsign does.

    PYTHONPATH=bindings/python PACKSIGN_LIB=build/libpacksign.so.1 \\
        examples/python/install_pack.py pack.tar.gz trust.yaml
"""
import sys

import packsign


def show_plan(plan: packsign.InstallPlan) -> None:
    print(f"about to install {plan.format} {plan.id} {plan.version}"
          f" signed by {plan.signer}")
    print(f"  destination: {plan.destination}")
    print("  " + (plan.summary or "").rstrip("\n").replace("\n", "\n  "))
    if plan.diff is not None:
        print(f"  upgrade from {plan.replaces_newest}:")
        for c in plan.diff.changes:
            mark = f"  [widening: {c.consent}]" if c.widening and c.consent \
                else ""
            print(f"    {c.kind} {c.field} {c.subject or ''}"
                  f" {c.old_value or ''} -> {c.new_value or ''}{mark}")


def ask(plan: packsign.InstallPlan) -> bool:
    """Shows the plan; on a terminal asks, else refuses."""
    show_plan(plan)
    if not sys.stdin.isatty():
        print("not a terminal: refusing (no consent given)",
              file=sys.stderr)
        return False
    return input("Install? [y/N] ").strip().lower() in ("y", "yes")


def main(argv) -> int:
    if len(argv) not in (3, 4):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    archive, policy = argv[1], argv[2]
    data_dir = argv[3] if len(argv) == 4 else None
    result = packsign.verify(archive, trust=policy)
    if not result.ok:
        print(f"{archive}: {result.message} [{result.code}]", file=sys.stderr)
        if result.expected or result.found:
            print(f"  expected: {result.expected}\n  found:    "
                  f"{result.found}", file=sys.stderr)
        return result.exit
    print(f"verified {result.id} {result.version} by "
          f"{', '.join(s.identity for s in result.signers)}")
    answered = []

    def confirm(plan):
        # An upgrade that needs consent asked it already (same answer).
        if answered:
            return answered[0]
        answered.append(ask(plan))
        return answered[0]

    try:
        done = packsign.install(archive, trust=policy, data_dir=data_dir,
                                confirm=confirm, consent=confirm,
                                consent_by="install_pack.py")
    except packsign.PacksignError as e:
        print(f"install_pack: {e}", file=sys.stderr)
        return e.exit
    if done.already_installed:
        print(f"already installed: {done.id} {done.version}")
    else:
        print(f"installed {done.id} {done.version} to {done.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
