// OpenSSL 3 headers for DTLS (WebRTCTransport) and HMAC/CRC helpers; macro shims go here as static inline functions.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/x509.h>
#include <openssl/rand.h>
#include <openssl/bio.h>
