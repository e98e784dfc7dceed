#include "engine/transport/gloo_address_store.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <gloo/transport/tcp/address.h>

#include <algorithm>
#include <cstring>

namespace pacer::engine {
namespace {

// Impl is protected: a subclass may name it, which ties the record size here to the Gloo headers we build with.
struct AddressLayout : gloo::transport::tcp::Address {
    static constexpr std::size_t kRecord = sizeof(Impl);
    static constexpr std::size_t kSockaddr = sizeof(sockaddr_storage);
};
static_assert(AddressLayout::kRecord >= AddressLayout::kSockaddr, "a Gloo address record starts with its sockaddr");

}  // namespace

std::size_t glooAddressRecordBytes() { return AddressLayout::kRecord; }

void scrubGlooAddresses(std::vector<char>& value) {
    const std::size_t record = AddressLayout::kRecord;
    if (value.empty() || value.size() % record != 0) return;
    auto usedBytes = [&](std::size_t at) -> std::size_t {
        sa_family_t family;
        std::memcpy(&family, value.data() + at, sizeof family);
        if (family == AF_INET) return sizeof(sockaddr_in);
        if (family == AF_INET6) return sizeof(sockaddr_in6);
        return 0;
    };
    for (std::size_t at = 0; at < value.size(); at += record)
        if (usedBytes(at) == 0) return;  // not (only) addresses: a value of some other key
    for (std::size_t at = 0; at < value.size(); at += record)
        std::fill(value.begin() + static_cast<std::ptrdiff_t>(at + usedBytes(at)),
                  value.begin() + static_cast<std::ptrdiff_t>(at + AddressLayout::kSockaddr), 0);
}

}  // namespace pacer::engine
