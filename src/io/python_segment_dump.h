// nvFuser's NVFUSER_DUMP=python_definition_segments log: before it compiles a segmented fusion,
// FusionKernelRuntime prints each segment as a Python definition, after a header line
// "Python definition for segmented group N:" (csrc/runtime/fusion_kernel_runtime.cpp:433-440 @
// 3925c6fd2^; python_frontend::FusionDefinition::print, python/python_frontend/
// fusion_definition.cpp:304-321, names each `nvfuser_incomplete_fusion`). Every segment is a
// fusion of its own: the import takes one, as `--dump` picks a dump of a printed-IR log.
//
// Complexity: linear in the text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "io/text_map.h"

namespace fc {

struct PythonSegment {
  size_t begin = 0, end = 0;  // the header line's first byte; the next header's (or the text's end)
  std::string label;          // the header, without its colon
};

// The segments of a python_definition_segments log, in the order printed; empty when the text
// has no header line.
std::vector<PythonSegment> findPythonSegments(std::string_view text);

// The text with every line outside the segment `which` picks blank (lines and columns stay the
// log's), and one note (FC0604) naming it; `text` itself when it holds fewer than two segments.
// `which`: "" or "first" (the default), "last", or a 1-based number; anything else is FC0901
// with the segments' count, and `ok` false.
MappedText pickPythonSegment(const MappedText& text, std::string_view which, DiagnosticSink& sink, bool& ok);

}  // namespace fc
