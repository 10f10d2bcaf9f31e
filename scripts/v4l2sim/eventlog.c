/*
 * The event logs tests read: one line per event, "NODE EVENT...", appended to the file an
 * environment variable names (LIVEPUSH_SIM_ENC_LOG for the encoders' events, LIVEPUSH_SIM_LOG
 * for every node's opens and closes). Each line is one write(2) on an O_APPEND descriptor, so
 * lines from several threads never interleave.
 */
#include "sim.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void sim_event_log(const char *variable, const char *node, const char *fmt, ...)
{
    const char *path = getenv(variable);
    if (!path || !*path)
        return;
    char line[256];
    int n = snprintf(line, sizeof(line), "%s ", node);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof(line) - 1)
        n = sizeof(line) - 2;
    line[n++] = '\n';
    int fd = sim_real.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) != n)
        SIM_LOG("event log write failed (%s)\n", variable);
    sim_real.close(fd);
}
