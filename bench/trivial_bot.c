/* The cheapest correct bot: answers every request by string search, no JSON parser.
   Used by the benchmarks so that the bot's own work is next to nothing and the referee's cost shows.
   Build: cc -O2 -o trivial_bot trivial_bot.c
   Usage: trivial_bot [PASS_MS]: with PASS_MS, each pass answer is held back that many milliseconds (a slow passer);
   a negative PASS_MS computes that long instead, on its own CPU clock (a CPU-heavy passer). */
#include <stdio.h>
#include <time.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

static char line[1 << 20];

/* Copy the first n quoted strings of the JSON array that follows key into out, as a JSON list body. */
static void first_strings(const char *key, int n, char *out) {
    const char *p = strstr(line, key);
    out[0] = 0;
    if (!p) return;
    p = strchr(p, '[');
    for (int i = 0; i < n && p; i++) {
        const char *a = strchr(p, '"');
        if (!a) return;
        const char *b = strchr(a + 1, '"');
        if (!b) return;
        if (i) strcat(out, ",");
        strncat(out, a, (size_t)(b - a + 1));
        p = b + 1;
    }
}

/* Spend ms milliseconds of this process's CPU time. */
static void spin_ms(long ms) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    double until = now.tv_sec + now.tv_nsec / 1e9 + ms / 1000.0;
    do {
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    } while (now.tv_sec + now.tv_nsec / 1e9 < until);
}

int main(int argc, char **argv) {
    char items[256];
    long pass_ms = argc > 1 ? atol(argv[1]) : 0;
    while (fgets(line, sizeof line, stdin)) {
        const char *idp = strstr(line, "\"id\":");
        if (strncmp(line, "{\"type\":\"bye\"", 13) == 0) return 0;
        if (!idp || idp[5] == 'n') continue; /* events carry no id; error notices carry "id":null or a number */
        if (strncmp(line, "{\"type\":\"error\"", 15) == 0) continue;
        long id = strtol(idp + 5, NULL, 10);
        if (strncmp(line, "{\"type\":\"play\"", 14) == 0) {
            first_strings("\"legal\":", 1, items);
            printf("{\"type\":\"play\",\"id\":%ld,\"card\":%s}\n", id, items);
        } else if (strncmp(line, "{\"type\":\"pass\"", 14) == 0) {
            first_strings("\"hand\":", 3, items);
            if (pass_ms > 0) usleep((useconds_t)(pass_ms * 1000));
            if (pass_ms < 0) spin_ms(-pass_ms);
            printf("{\"type\":\"pass\",\"id\":%ld,\"cards\":[%s]}\n", id, items);
        } else if (strncmp(line, "{\"type\":\"trump\"", 15) == 0) {
            first_strings("\"choices\":", 1, items);
            printf("{\"type\":\"trump\",\"id\":%ld,\"suit\":%s}\n", id, items);
        } else if (strncmp(line, "{\"type\":\"moon\"", 14) == 0) {
            printf("{\"type\":\"moon\",\"id\":%ld,\"choice\":\"others\"}\n", id);
        } else if (strncmp(line, "{\"type\":\"hello\"", 15) == 0) {
            printf("{\"type\":\"hello\",\"id\":%ld,\"name\":\"trivial\",\"version\":\"1\",\"protocol\":1}\n", id);
        } else {
            continue;
        }
        fflush(stdout);
    }
    return 0;
}
