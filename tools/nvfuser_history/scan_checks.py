#!/usr/bin/env python3
"""Where each nvFuser check fusecheck names sits, commit by commit.

Reads a clone of NVIDIA/Fuser (git only, no work tree needed) and, for every
first-parent commit of main that touches one of a check's files, finds the
line of the check's message literal, walks back to the macro call that holds
it (NVF_ERROR / NVF_CHECK / NVF_THROW) and records the macro's first line
(the line nvFuser prints), the macro and its condition. Prints one row per
change of (file, line, macro, condition) as FC_NVCHECK_AT(...) lines for
src/pipeline/nvfuser_check_sites.def.

  tools/nvfuser_history/scan_checks.py --mirror /path/to/Fuser [--head REV]

Only file:line facts are taken from nvFuser's source; nothing is copied.
"""
import argparse
import re
import subprocess
import sys

# key: (paths in the order they are tried, a substring of the message
# literal, unused, "after" when the macro call follows the literal (a message
# built in a stream first) instead of holding it)
CHECKS = {
    "ConcretizeExtent": (["csrc/dynamic_transform.cpp"], "Could not evaluate dynamic extent", None, None),
    "MdeNoBuffer": (["csrc/multidevice/executor.cpp"], "has no buffer associated with Val", None, None),
    "MdeScalarInput": (["csrc/multidevice/executor.cpp"], "val_to_IValue_.at(input).isTensor()", None, None),
    "HieNoBuffer": (["csrc/host_ir/executor.cpp"], "No buffer associated with Val", None, None),
    "HieNotPrecomputed": (["csrc/host_ir/executor.h", "csrc/host_ir/evaluator.h", "csrc/host_ir/evaluator.cpp"],
                          "must be precomputed before being retrieved", None, None),
    "LocalAllocation": (["csrc/executor.cpp", "csrc/fusion_executor/executor.cpp",
                         "csrc/runtime/executor.cpp", "csrc/runtime/compiled_kernel.cpp"],
                        "Allocations must be based on constant integers for local memory", None, "after"),
    "DynamicBeforeLowering": (["csrc/device_lower/validation.cpp"],
                              "Tensor with dynamic transform must be concretized before lowering", None, None),
    "MeshAtLeastOne": (["csrc/multidevice/utils.cpp"], "At least one input requires a DeviceMesh", None, None),
    "MeshPerInput": (["csrc/multidevice/utils.cpp", "csrc/preseg_passes/propagate_shardings.cpp"],
                     "should be assigned a DeviceMesh", None, None),
    "MeshAllOrNone": (["csrc/preseg_passes/propagate_shardings.cpp"], "\" assigned a mesh and \"", None, None),
    "MeshSomeWithout": (["csrc/preseg_passes/make_resharding_contiguous.cpp",
                         "csrc/preseg_passes/finalize_multidevice_domains.cpp"],
                        "Cannot have some TensorViews with device mesh and some without", None, None),
    "NonTvOp": (["csrc/multidevice/lower_communication.cpp"], "Non-tv op is not supported yet", None, None),
    "LoweringNotSupported": (["csrc/multidevice/lower_communication.cpp", "csrc/host_ir/lower.cpp"],
                             "to communication is not supported", None, None),
    "InnerResharding": (["csrc/multidevice/lower_communication.cpp", "csrc/host_ir/lower.cpp",
                         "csrc/host_ir/lower_to_communication.cpp"],
                        "Resharding on an inner axis is not lowerable", None, None),
    "OneAxisResharding": (["csrc/multidevice/utils.cpp", "csrc/preseg_passes/reorder_sharded_axis.cpp"],
                          "Resharding expr can only support one axis", None, None),
    "UnmappedProducerAxis": (["csrc/multidevice/utils.cpp"], "that is not mapped to its consumer", None, None),
    "MergeIterTypes": (["csrc/ir/nodes.cpp", "csrc/ir/internal_base_nodes.cpp"],
                       "Merging IterDomains requires that their iteration types match", None, None),
    "DidLocalSizeOne": (["csrc/expr_evaluator.cpp"], "is sharded and must have size 1", None, None),
    "DidBindConstantOne": (["csrc/expr_evaluator.cpp"], "Tried to bind a constant value 1 as", None, None),
    "BindConstant": (["csrc/expr_evaluator.cpp"], "Tried to bind to a constant value", None, None),
    "ReshapeMinusOne": (["csrc/dynamic_transform.cpp"], "Values of -1 passed to reshape must be constant at definition", None, None),
    "ReshapeOutputExtent": (["csrc/dynamic_transform.cpp"], "Cannot evaluate the extent of an output domain to reshape", None, None),
    "ExpandMismatch": (["csrc/dynamic_transform.cpp"], "Mismatch in sizes when concretizing expand", None, None),
    "OneDSharding": (["csrc/multidevice/device_mesh.cpp"], "We support only 1-D sharding for now", None, None),
    "OneShardingChange": (["csrc/host_ir/lower_to_communication.cpp"], "Expected at most one sharding change", None, None),
    "OutputSizeMismatch": (["csrc/kernel_cache.cpp", "csrc/runtime/fusion_cache_utils.cpp"],
                           "utput size does not match", None, None),
    "NoTensorInputs": (["csrc/scheduler/reduction.cpp"], "Tried to schedule a fusion with no tensor inputs", None,
                       None),
    "SqueezeNonBroadcast": (["csrc/ops/alias.cpp"], "Can not squeeze non-broadcasting dimension", None, None),
    "SqueezedProducerBroadcast": (["csrc/root_domain_map.cpp"], "(producer_id->isBroadcast());", None, None),
    "UnmappedSymbolicOutput": (["csrc/dynamic_transform.cpp"], "No input ID found to map with output ID", None, None),
    "UnexpectedAxisSize": (["csrc/scheduler/registry.cpp", "csrc/scheduler/registry_utils.cpp"],
                           "Unexpected size of axis", None, None),
    "NoSchedulerForSegment": (["csrc/fusion_segmenter.cpp"], "Can not find a scheduler to schedule fusion segment",
                              None, None),
    "InvalidExpandSize": (["csrc/ops/arith.cpp", "csrc/ops/alias.cpp"], "Invalid expand size", None, None),
    "MergeNotConnected": (["csrc/fusion_segmenter.cpp"], "only support testing immediate producer-consumer groups",
                          None, None),
    "InferShape": (["csrc/executor.cpp", "csrc/fusion_executor/allocations.cpp", "csrc/runtime/allocations.cpp"],
                   "Could not launch kernel as program could not infer", None, None),
    "MultiOutputMismatch": (["csrc/compute_at_map.cpp"], "Multiple outputs with mismatched dimensions is not supported",
                            None, None),
}

MACROS = ("NVF_ERROR_EQ(", "NVF_CHECK_EQ(", "NVF_ERROR(", "NVF_CHECK(", "NVF_THROW(", "TORCH_INTERNAL_ASSERT(",
          "TORCH_CHECK(")


def git(mirror, *args):
    return subprocess.run(["git", "-C", mirror, *args], check=True, capture_output=True, text=True,
                          errors="replace").stdout


def arguments(lines, start, macro, count):
    """The first `count` macro arguments, whitespace collapsed."""
    text = "\n".join(lines[start:start + 20])
    i = text.index(macro) + len(macro)
    depth, out, args = 0, [], []
    while i < len(text) and len(args) < count:
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            args.append(" ".join("".join(out).split()))
            out = []
            i += 1
            continue
        out.append(c)
        i += 1
    if len(args) < count:
        args.append(" ".join("".join(out).split()))
    return args


def condition(lines, start, macro):
    """The macro's condition: its first argument; for NVF_ERROR_EQ / NVF_CHECK_EQ (an NVF_ERROR /
    NVF_CHECK of `(lhs) == (rhs)`, csrc/exceptions.h) the comparison of its first two."""
    if macro.endswith("_EQ("):
        lhs, rhs = (arguments(lines, start, macro, 2) + [""])[:2]
        return f"({lhs}) == ({rhs})"
    return arguments(lines, start, macro, 1)[0]


def locate(blob, needle, after=False):
    lines = blob.split("\n")
    for k, line in enumerate(lines):
        if needle not in line:
            continue
        span = range(k, min(len(lines), k + 14)) if after else range(k, max(-1, k - 14), -1)
        for j in span:
            for m in MACROS:
                if m in lines[j]:
                    macro = m[:-1].removesuffix("_EQ")
                    cond = "" if macro == "NVF_THROW" else condition(lines, j, m)
                    return j + 1, macro, cond
        return None
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", required=True)
    ap.add_argument("--head", default="81c4b22fd750")
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    order = git(a.mirror, "log", "--first-parent", "--reverse", "--format=%H %cd %s",
                "--date=format-local:%Y-%m-%d", a.head)
    pos = {}
    info = {}
    for n, row in enumerate(order.splitlines()):
        h, d, s = row.split(" ", 2)
        pos[h] = n
        m = re.search(r"\(#(\d+)\)\s*$", s)
        info[h] = (d, int(m.group(1)) if m else 0)
    for key, (paths, needle, _, where) in CHECKS.items():
        if a.only and key not in a.only:
            continue
        commits = git(a.mirror, "log", "--first-parent", "--reverse", "--format=%H", a.head, "--", *paths).split()
        prev = None
        for h in commits:
            found = None
            for p in paths:
                try:
                    blob = git(a.mirror, "show", f"{h}:{p}")
                except subprocess.CalledProcessError:
                    continue
                r = locate(blob, needle, where == "after")
                if r:
                    found = (p, *r)
                    break
            if found != prev:
                d, pr = info[h]
                if found:
                    p, line, macro, cond = found
                    cond = cond.replace("\\", "\\\\").replace('"', '\\"')
                    print(f'FC_NVCHECK_AT({key}, {pr}, "{h}", "{d}", "{p}", {line}, {macro}, "{cond}")')
                else:
                    print(f'FC_NVCHECK_AT({key}, {pr}, "{h}", "{d}", "", 0, None, "")')
                prev = found
    return 0


if __name__ == "__main__":
    sys.exit(main())
