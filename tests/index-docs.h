/* index-docs.h - pieces of index documents the index tests build on:
 * two digests, the URLs an index is read from, and the start of a valid
 * document with a valid build to go with it. */
#ifndef AB_TEST_INDEX_DOCS_H
#define AB_TEST_INDEX_DOCS_H

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HTTP_URL "http://h:1/farm/index.json"
#define FILE_URL "file:///srv/farm/index.json"

/* The start of a valid document, and a valid build to go with it. */
#define HEAD "{\"format\":\"artbisect-index\",\"version\":1,"
#define ART(url) "{\"url\":\"" url "\",\"sha256\":\"" SHA_A "\"}"
#define BUILD(id) "{\"id\":\"" id "\",\"artifacts\":[" ART("x.rpm") "]}"

#endif
