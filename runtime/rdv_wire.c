/*
 * rdv_wire.c -- what both ends of the rendezvous use (rdv_wire.h): its
 * clock, "addr:port" parsing and formatting, the job key.
 */
#include "rdv_wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* "a.b.c.d:port" or "[v6]:port": KUMI_OK, or KUMI_ERR_INVALID */
int kumi_rdv_parse_addr(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
    char          host[INET6_ADDRSTRLEN + 2], *end;
    const char   *colon = strrchr(text, ':');
    size_t        hl;
    unsigned long port;

    if (colon == NULL || colon[1] < '0' || colon[1] > '9')
        return KUMI_ERR_INVALID;
    errno = 0;
    port = strtoul(colon + 1, &end, 10);
    if (errno != 0 || *end != '\0' || port == 0 || port > 65535)
        return KUMI_ERR_INVALID;
    hl = (size_t)(colon - text);
    if (hl >= 2 && text[0] == '[' && text[hl - 1] == ']') {
        text++;
        hl -= 2;
    }
    if (hl == 0 || hl >= sizeof(host))
        return KUMI_ERR_INVALID;
    memcpy(host, text, hl);
    host[hl] = '\0';
    memset(ss, 0, sizeof(*ss));
    struct sockaddr_in  *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port   = htons((uint16_t)port);
        *len           = sizeof(*v4);
        return KUMI_OK;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port   = htons((uint16_t)port);
        *len            = sizeof(*v6);
        return KUMI_OK;
    }
    return KUMI_ERR_INVALID;
}

void kumi_rdv_format_addr(const struct sockaddr_storage *ss, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";

    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
        snprintf(buf, len, "%s:%u", host, ntohs(v4->sin_port));
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
        snprintf(buf, len, "[%s]:%u", host, ntohs(v6->sin6_port));
    } else {
        snprintf(buf, len, "?");
    }
}

int kumi_rdv_parse_key(const char *hex, uint8_t key[KUMI_RDV_KEY_BYTES])
{
    uint8_t out[KUMI_RDV_KEY_BYTES];

    if (hex == NULL || strlen(hex) != 2 * KUMI_RDV_KEY_BYTES)
        return KUMI_ERR_INVALID;
    for (int i = 0; i < 2 * KUMI_RDV_KEY_BYTES; i++) {
        char c = hex[i];
        int  v = c >= '0' && c <= '9' ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0)
            return KUMI_ERR_INVALID;
        out[i / 2] = (uint8_t)(i % 2 == 0 ? v << 4 : out[i / 2] | v);
    }
    memcpy(key, out, sizeof(out));
    return KUMI_OK;
}
