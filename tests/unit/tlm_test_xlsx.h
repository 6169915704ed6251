/*
 * tlm_test_xlsx.h - hand-made workbooks for the xlsx tests: a zip
 * archive of given parts (libzip), and a minimal package around one
 * worksheet's XML (and optionally shared strings), so that a test
 * controls every byte the reader sees.
 */
#ifndef TLM_TEST_XLSX_H
#define TLM_TEST_XLSX_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#ifndef TT_UNUSED
#define TT_UNUSED __attribute__((unused))
#endif

/* Writes the zip archive path holding parts[0..n) (name, text pairs);
 * returns 0 or -1. */
static TT_UNUSED int tx_zip(const char *path, const char *(*parts)[2],
                            size_t n)
{
    int e = 0;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &e);
    if (!z)
        return -1;
    for (size_t i = 0; i < n; i++) {
        zip_source_t *s = zip_source_buffer(z, parts[i][1],
                                            strlen(parts[i][1]), 0);
        if (!s || zip_file_add(z, parts[i][0], s, ZIP_FL_OVERWRITE) < 0) {
            zip_source_free(s);
            zip_discard(z);
            return -1;
        }
    }
    return zip_close(z) == 0 ? 0 : -1;
}

#define TX_NS "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
#define TX_RNS                                                              \
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#define TX_PNS "http://schemas.openxmlformats.org/package/2006/relationships"

/* A package with one sheet named name reached through the relationship
 * target (relative to xl/, or absolute), its part (NULL: the target's
 * plain path) holding sheet_xml; sst_xml (or NULL) as shared strings. */
static TT_UNUSED int tx_book(const char *path, const char *name,
                             const char *target, const char *part_name,
                             const char *sheet_xml, const char *sst_xml)
{
    char book[1024], rels[1024], part[256];
    snprintf(book, sizeof book,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<workbook xmlns=\"" TX_NS "\" xmlns:r=\"" TX_RNS "\">"
             "<sheets><sheet name=\"%s\" sheetId=\"1\" r:id=\"rId7\"/>"
             "</sheets></workbook>", name);
    snprintf(rels, sizeof rels,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<Relationships xmlns=\"" TX_PNS "\">"
             "<Relationship Id=\"rId7\" Type=\"" TX_RNS "/worksheet\" "
             "Target=\"%s\"/>"
             "<Relationship Id=\"rId8\" Type=\"" TX_RNS "/sharedStrings\" "
             "Target=\"sharedStrings.xml\"/></Relationships>", target);
    if (part_name)
        snprintf(part, sizeof part, "%s", part_name);
    else if (target[0] == '/')
        snprintf(part, sizeof part, "%s", target + 1);
    else
        snprintf(part, sizeof part, "xl/%s", target);
    const char *top =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<Relationships xmlns=\"" TX_PNS "\"><Relationship Id=\"rId1\" "
        "Type=\"" TX_RNS "/officeDocument\" Target=\"xl/workbook.xml\"/>"
        "</Relationships>";
    const char *parts[][2] = {
        {"[Content_Types].xml", "<Types/>"},
        {"_rels/.rels", top},
        {"xl/workbook.xml", book},
        {"xl/_rels/workbook.xml.rels", rels},
        {part, sheet_xml},
        {"xl/sharedStrings.xml", sst_xml ? sst_xml : "<sst xmlns=\"" TX_NS
                                                     "\"/>"},
    };
    return tx_zip(path, parts, 6);
}

#endif /* TLM_TEST_XLSX_H */
