// Export of one run in Perfetto's native trace format: a protobuf `Trace` whose `TracePacket`s describe one track
// per Pacer track (a child of one track per rank) and the run's spans as TrackEvent slices, with a flow from each
// gradient (the backward that made it) to the collective that reduced it. Perfetto's UI and trace processor open
// it directly; unlike Chrome JSON it needs no JSON parse and keeps every nanosecond.
//
// The wire format is written here by hand (no protobuf library): varints, length-delimited submessages, fixed64
// flow ids. Field numbers follow Perfetto's public protos (protos/perfetto/trace/trace.proto, trace_packet.proto,
// track_event/track_event.proto, track_event/track_descriptor.proto):
//   Trace.packet = 1
//   TracePacket.timestamp = 8, .track_event = 11, .trusted_packet_sequence_id = 10, .track_descriptor = 60
//   TrackDescriptor.uuid = 1, .name = 2, .parent_uuid = 5
//   TrackEvent.type = 9 (SLICE_BEGIN 1, SLICE_END 2), .track_uuid = 11, .categories = 22, .name = 23,
//             .flow_ids = 47, .terminating_flow_ids = 48
// Slices on one Perfetto track must nest; spans of one Pacer track that overlap without nesting (several
// collectives in flight on one comm track) go to extra tracks under the same rank ("... (2)").
#pragma once

#include <cstdint>
#include <string>

#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

std::string perfettoTraceBytes(const RunTrace& trace);
Status exportPerfettoTrace(const std::string& projectPath, std::int64_t runId, const std::string& outFile);

}  // namespace pacer::profiler
