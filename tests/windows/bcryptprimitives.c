/* A stand-in for Windows' bcryptprimitives.dll under Wine 8, for the Windows CI stage
 * only (never shipped). Rust's standard library takes its random bytes from
 * ProcessPrng in bcryptprimitives.dll (Windows 10 and later); Wine 8 has no such DLL,
 * so a Rust program does not start there. This one, placed beside the program, answers
 * ProcessPrng from RtlGenRandom (advapi32's SystemFunction036), which Wine has. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
