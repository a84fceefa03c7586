// OpenSSL 3 headers for DTLS (WebRTCTransport) and HMAC/CRC helpers; macro shims go here as static inline functions.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/x509.h>
#include <openssl/rand.h>
#include <openssl/bio.h>

// Function-like macros Swift cannot import, wrapped for WebRTCTransport (DTLS over memory BIOs).
static inline int sluice_DTLSv1_get_timeout(SSL *ssl, struct timeval *tv) { return (int)DTLSv1_get_timeout(ssl, tv); }
static inline int sluice_DTLSv1_handle_timeout(SSL *ssl) { return (int)DTLSv1_handle_timeout(ssl); }
static inline int sluice_SSL_set_mtu(SSL *ssl, long mtu) { return (int)SSL_set_mtu(ssl, mtu); }
static inline int sluice_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int sluice_BIO_set_mem_eof_return(BIO *bio, int value) { return (int)BIO_set_mem_eof_return(bio, value); }
static inline uint64_t sluice_SSL_OP_NO_QUERY_MTU(void) { return SSL_OP_NO_QUERY_MTU; }
static inline uint64_t sluice_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }
static inline EVP_PKEY *sluice_EVP_EC_gen_P256(void) { return EVP_EC_gen("P-256"); }
