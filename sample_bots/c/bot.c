/* bot.c - a kierki starter bot in C (C99 + POSIX getline), JSON through cJSON.
 *
 * Build:     cc -O2 -o sample_bots/c/bot sample_bots/c/bot.c -lcjson
 *            (cJSON: Debian/Ubuntu `apt-get install libcjson-dev`, Fedora `dnf install cjson-devel`,
 *             macOS `brew install cjson`; or drop cJSON.c and cJSON.h from github.com/DaveGamble/cJSON
 *             next to this file and build with `cc -O2 -I. -o bot bot.c cJSON.c`)
 * Play it:   kierki match sample_bots/c/bot sample_bots/c/bot ...
 * Check it:  kierki check-bot -- sample_bots/c/bot
 *
 * It plays every game legally and nothing more: it passes the first cards of its hand, names the first trump
 * offered, plays the first legal card and lets the others take the moon points. Change the choose_* functions.
 *
 * The protocol (PROTOCOL.md) in short: the referee writes one JSON object per line to our stdin. Messages with
 * an "id" (hello, pass, trump, play, moon) are requests: answer each with one JSON line on stdout with the same
 * "type" and "id". Everything else is an event needing no answer. Ignore message types and fields you do not
 * know: the protocol grows by adding them. stdout is only for answers; log to stderr. Exit on "bye" or when
 * stdin closes.
 */
#define _POSIX_C_SOURCE 200809L /* for getline() */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef KIERKI_LOCAL_CJSON
#include "cJSON.h"
#else
#include <cjson/cJSON.h>
#endif

static const char *NAME = "starter-c";
static const char *VERSION = "1.0";
static const int PROTOCOL = 2;

/* The field `key` of `msg` as a string, or "" when it is missing or not a string. */
static const char *text(const cJSON *msg, const char *key) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(msg, key);
    return cJSON_IsString(item) ? item->valuestring : "";
}

/* The decisions. Each request lists what is allowed ("hand", "choices", "legal"), so no rules are needed here.
 * Each returns a new cJSON value that the caller adds to the answer. */
static cJSON *choose_pass(const cJSON *msg) {
    const cJSON *hand = cJSON_GetObjectItemCaseSensitive(msg, "hand");
    const cJSON *how_many = cJSON_GetObjectItemCaseSensitive(msg, "count");
    int count = cJSON_IsNumber(how_many) ? how_many->valueint : 3;
    cJSON *cards = cJSON_CreateArray();
    for (int i = 0; i < count; i++) /* any `count` cards of the hand */
        cJSON_AddItemToArray(cards, cJSON_Duplicate(cJSON_GetArrayItem(hand, i), 1));
    return cards;
}

static cJSON *choose_trump(const cJSON *msg) {
    /* "cards" holds the 5 (3 players: 6) cards seen so far */
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(msg, "choices");
    return cJSON_Duplicate(cJSON_GetArrayItem(choices, 0), 1);
}

static cJSON *choose_play(const cJSON *msg) {
    /* "legal" is never empty; "trick", "tricks" and "lottery" tell the rest */
    const cJSON *legal = cJSON_GetObjectItemCaseSensitive(msg, "legal");
    return cJSON_Duplicate(cJSON_GetArrayItem(legal, 0), 1);
}

static cJSON *choose_moon(const cJSON *msg) {
    (void)msg; /* msg.options.self / msg.options.others: the totals after each choice */
    return cJSON_CreateString("others");
}

/* The answer to one message, or NULL for events and for types this bot does not know. */
static cJSON *answer(const cJSON *msg) {
    const char *type = text(msg, "type");
    cJSON *reply = cJSON_CreateObject();
    if (strcmp(type, "hello") == 0) {
        cJSON_AddStringToObject(reply, "name", NAME);
        cJSON_AddStringToObject(reply, "version", VERSION);
        cJSON_AddNumberToObject(reply, "protocol", PROTOCOL);
    } else if (strcmp(type, "pass") == 0) {
        cJSON_AddItemToObject(reply, "cards", choose_pass(msg));
    } else if (strcmp(type, "trump") == 0) {
        cJSON_AddItemToObject(reply, "suit", choose_trump(msg));
    } else if (strcmp(type, "play") == 0) {
        cJSON_AddItemToObject(reply, "card", choose_play(msg));
    } else if (strcmp(type, "moon") == 0) {
        cJSON_AddItemToObject(reply, "choice", choose_moon(msg));
    } else {
        if (strcmp(type, "error") == 0)
            fprintf(stderr, "%s: the referee says: %s\n", NAME, text(msg, "message"));
        cJSON_Delete(reply); /* game_start, deal, played, trick, deal_end, game_end, ... and unknown types */
        return NULL;
    }
    cJSON_AddStringToObject(reply, "type", type);
    cJSON_AddItemToObject(reply, "id", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(msg, "id"), 1));
    return reply;
}

int main(void) {
    char *line = NULL; /* getline() grows it: referee lines have no fixed length limit */
    size_t size = 0;
    while (getline(&line, &size, stdin) != -1) {
        if (strspn(line, " \t\r\n") == strlen(line))
            continue; /* a blank line */
        cJSON *msg = cJSON_Parse(line);
        if (!cJSON_IsObject(msg)) {
            fprintf(stderr, "%s: ignoring a line that is not a JSON object: %.200s", NAME, line);
            cJSON_Delete(msg);
            continue;
        }
        if (strcmp(text(msg, "type"), "bye") == 0) {
            fprintf(stderr, "%s: bye: %s\n", NAME, text(msg, "reason"));
            cJSON_Delete(msg);
            break;
        }
        cJSON *reply = answer(msg);
        if (reply != NULL) {
            char *out = cJSON_PrintUnformatted(reply); /* one line, no newlines inside */
            printf("%s\n", out);
            fflush(stdout); /* a pipe is block-buffered: without this the referee would wait forever */
            free(out);
            cJSON_Delete(reply);
        }
        cJSON_Delete(msg);
    }
    free(line);
    return 0; /* bye or end of input */
}
