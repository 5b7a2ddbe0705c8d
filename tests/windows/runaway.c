/* A runaway hook for the Windows CI stage (never shipped): starts a copy of itself
 * (`runaway.exe child`), writes nothing, and never ends. hookhost must end both when
 * the hook's timeout passes: its Job Object takes the whole tree. */
#include <windows.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "child") != 0) {
        char self[MAX_PATH];
        GetModuleFileNameA(NULL, self, MAX_PATH);
        char line[MAX_PATH + 16];
        lstrcpyA(line, "runaway.exe child");
        STARTUPINFOA start = {sizeof start};
        PROCESS_INFORMATION info;
        if (!CreateProcessA(self, line, NULL, NULL, FALSE, 0, NULL, NULL, &start, &info)) {
            return 3;
        }
    }
    Sleep(INFINITE);
    return 0;
}
