/* A stand-in shell for the Windows CI stage (never shipped): Wine has neither Git Bash
 * nor PowerShell, the two shells hookhost picks for a command hook on Windows. Built as
 * bash.exe and pwsh.exe, it takes the hook's command the way hookhost passes it
 * (`bash -c TEXT`, `pwsh -NoProfile -NonInteractive -Command TEXT`), records which
 * shell was asked and how in SHELL_SHIM_LOG, and runs TEXT with cmd.exe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <process.h>

int main(int argc, char **argv) {
    const char *text = NULL;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "-Command") == 0) {
            text = argv[i + 1];
        }
    }
    if (text == NULL) {
        fprintf(stderr, "shell shim: no -c or -Command argument\n");
        return 2;
    }
    const char *log = getenv("SHELL_SHIM_LOG");
    if (log != NULL) {
        FILE *out = fopen(log, "a");
        if (out != NULL) {
            fprintf(out, "%s", argv[0]);
            for (int i = 1; i < argc; i++) {
                fprintf(out, " [%s]", argv[i]);
            }
            fprintf(out, "\n");
            fclose(out);
        }
    }
    intptr_t status = _spawnlp(_P_WAIT, "cmd.exe", "cmd.exe", "/c", text, NULL);
    return status < 0 ? 127 : (int)status;
}
