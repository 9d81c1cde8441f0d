/* Baseline for the referee-overhead benchmark: read a line, answer with a fixed line of the given size.
   Build: cc -O2 -o echo_child echo_child.c ; run: echo_child ANSWER_BYTES */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[1 << 20];

int main(int argc, char **argv) {
    int size = argc > 1 ? atoi(argv[1]) : 40;
    char *answer = malloc((size_t)size + 2);
    memset(answer, 'x', (size_t)size);
    answer[size] = '\n';
    answer[size + 1] = 0;
    while (fgets(line, sizeof line, stdin)) {
        fputs(answer, stdout);
        fflush(stdout);
    }
    return 0;
}
