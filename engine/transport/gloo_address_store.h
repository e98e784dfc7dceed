// Gloo publishes each rank's listening addresses in the rendezvous store as raw copies of its tcp::Address: a
// 128-byte sockaddr_storage (of which IPv4 uses 16 bytes, IPv6 28) and a sequence number. Gloo fills the storage
// with getsockname() into an uninitialised stack buffer, so the other 100-odd bytes were whatever the stack held —
// pointers and the stack protector's canary went into files on what may be a shared filesystem. The Gloo
// transport writes through a store that zeroes those bytes first (gloo_transport.cpp).
#pragma once

#include <cstddef>
#include <vector>

namespace pacer::engine {

// Bytes of one address record as Gloo writes it (sizeof its tcp::Address::Impl).
std::size_t glooAddressRecordBytes();

// If `value` is a run of address records (whole records, each IPv4 or IPv6), zeroes every byte of each record's
// socket address past the family's own length; any other value is left as it is.
void scrubGlooAddresses(std::vector<char>& value);

}  // namespace pacer::engine
