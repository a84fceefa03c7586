// libsrt 1.5, GnuTLS flavour (libsrt-gnutls-dev): the build Debian's libavformat already links, so the process
// holds one libsrt, for SRT ingest.
#include <srt/srt.h>
#include <srt/access_control.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

// SRT_INVALID_SOCK and SRT_ERROR are macros over an expression: Swift cannot import them.
static inline SRTSOCKET sluice_srt_invalid_sock(void) { return SRT_INVALID_SOCK; }
static inline int sluice_srt_error(void) { return SRT_ERROR; }

// The peer address of a listen callback as text ("?" when the family is unknown).
static inline void sluice_srt_format_address(const struct sockaddr *sa, char *out, size_t size) {
    if (size == 0) return;
    out[0] = '?';
    if (size > 1) out[1] = 0;
    if (sa == NULL) return;
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)size);
    } else if (sa->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)size);
    }
}

// The port of an IPv4/IPv6 address, host order.
static inline int sluice_srt_address_port(const struct sockaddr *sa) {
    if (sa == NULL) return 0;
    if (sa->sa_family == AF_INET) return ntohs(((const struct sockaddr_in *)sa)->sin_port);
    if (sa->sa_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
    return 0;
}
