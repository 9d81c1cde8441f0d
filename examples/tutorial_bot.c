/* The tutorial's bot in C with no JSON library (docs/bots/tutorial.md): each message is one JSON object on one
   line, and a bot needs only a few fields of it, so it finds them by their quoted key. It plays the first legal
   card, passes the first cards of its hand, names the first suit offered and lets the others take the moon points.
   Build: cc -O2 -o tutorial_bot examples/tutorial_bot.c    Check: kierki check-bot -- ./tutorial_bot */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[1 << 20]; /* a message is at most a few kB; longer lines are cut and then ignored */

/* The value after "key": in line, or NULL when the message has no such field. */
static const char *field(const char *key) {
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    for (const char *p = strstr(line, quoted); p; p = strstr(p + 1, quoted)) {
        const char *v = p + strlen(quoted);
        while (isspace((unsigned char)*v)) v++;
        if (*v != ':') continue; /* the key's name inside a string value, not a key */
        v++;
        while (isspace((unsigned char)*v)) v++;
        return v;
    }
    return NULL;
}

/* Copy the first n strings of the JSON array at v (quotes included, comma-separated) into out. */
static void first_strings(const char *v, long n, char *out, size_t size) {
    out[0] = 0;
    for (long i = 0; v && i < n; i++) {
        const char *a = strchr(v, '"'), *b = a ? strchr(a + 1, '"') : NULL;
        if (!b || (size_t)(b - a + 2) + strlen(out) >= size) return;
        if (i) strcat(out, ",");
        strncat(out, a, (size_t)(b - a + 1));
        v = b + 1;
    }
}

int main(void) {
    char type[32], items[1024];
    while (fgets(line, sizeof line, stdin)) {
        const char *t = field("type"), *id = field("id");
        if (!t || sscanf(t, "\"%31[a-z_]\"", type) != 1) continue;
        if (strcmp(type, "bye") == 0) return 0;
        if (strcmp(type, "error") == 0) continue; /* an event; its "fallback" nests an answer with an "id" */
        if (!id || !isdigit((unsigned char)*id)) continue; /* an event: every message with an id is a request */
        long n = strtol(id, NULL, 10);
        if (strcmp(type, "hello") == 0) {
            printf("{\"type\":\"hello\",\"id\":%ld,\"name\":\"tutorial-c\",\"version\":\"1\",\"protocol\":2}\n", n);
        } else if (strcmp(type, "pass") == 0) {
            first_strings(field("hand"), field("count") ? strtol(field("count"), NULL, 10) : 3, items, sizeof items);
            printf("{\"type\":\"pass\",\"id\":%ld,\"cards\":[%s]}\n", n, items);
        } else if (strcmp(type, "trump") == 0) {
            first_strings(field("choices"), 1, items, sizeof items);
            printf("{\"type\":\"trump\",\"id\":%ld,\"suit\":%s}\n", n, items);
        } else if (strcmp(type, "play") == 0) {
            first_strings(field("legal"), 1, items, sizeof items);
            printf("{\"type\":\"play\",\"id\":%ld,\"card\":%s}\n", n, items);
        } else if (strcmp(type, "moon") == 0) {
            printf("{\"type\":\"moon\",\"id\":%ld,\"choice\":\"others\"}\n", n);
        } else {
            printf("{\"type\":\"%s\",\"id\":%ld}\n", type, n); /* a request type this bot does not know */
        }
        fflush(stdout); /* the commonest mistake of all: an answer left in the buffer never reaches the referee */
    }
    return 0;
}
