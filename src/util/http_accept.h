/* Content negotiation on an HTTP Accept header (RFC 9110 section 12.5.1):
 * how much a client wants one media type a server can offer, so that it is
 * served what it asked for first. Prometheus 2.42 (Debian 12) asks
 *   application/openmetrics-text;version=1.0.0,
 *   application/openmetrics-text;version=0.0.1;q=0.75,
 *   text/plain;version=0.0.4;q=0.5, and any type with q=0.1;
 * curl asks for any type, promtool sends no Accept. */
#ifndef TALLY_UTIL_HTTP_ACCEPT_H
#define TALLY_UTIL_HTTP_ACCEPT_H

/* The quality, 0 to 1, that ACCEPT gives to TYPE ("type/subtype") in
 * VERSION (its "version" parameter; NULL: none): the q of the most specific
 * range that matches it (type/subtype with that version, type/subtype with
 * no version, type with any subtype, any type; the highest q among equally
 * specific ones), 0 when none does. A NULL or empty ACCEPT accepts
 * anything: 1. A q that cannot be read counts as 1 (lenient, as servers
 * are); a q outside 0..1 is clamped. */
double http_accept_quality(const char *accept, const char *type, const char *version);

#endif
