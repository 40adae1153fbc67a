; The Windows installer of Docs MCP, built on Linux by scripts/windows.sh with Debian's
; makensis (Tauri's own NSIS bundler fetches its plugin from GitHub, which these machines do
; not reach). Per user, no administrator: as Tauri's "currentUser" mode, into
; %LOCALAPPDATA%\Programs\Docs MCP, with a Start menu shortcut and an entry in
; Settings > Apps that uninstalls it. The data directory (%APPDATA%\lasuite-docs-mcp: the journal of
; edits, settings) is kept by an uninstall, as a person's edits history should be.
;
; makensis -DVERSION=0.1.0 -DAPP_EXE=... -DCLI_EXE=... -DWEBVIEW2_LOADER=... -DICON=... -DOUT=...
;   installer.nsi

Unicode true
ManifestDPIAware true
RequestExecutionLevel user
SetCompressor /SOLID lzma

!define PRODUCT "Docs MCP"
!define PUBLISHER "lasuite-docs-mcp contributors"
; The app's identifier (tauri.conf.json): the uninstall entry's key.
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\org.lasuite.docs-mcp"
; Where tauri-plugin-autostart (auto-launch) writes the start at login, under the product name.
!define RUN_KEY "Software\Microsoft\Windows\CurrentVersion\Run"
!define STARTUP_APPROVED_KEY "Software\Microsoft\Windows\CurrentVersion\Explorer\StartupApproved\Run"
; Set by the WebView2 runtime's installers (per machine, then per user).
!define WEBVIEW2_KEY "SOFTWARE\WOW6432Node\Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"
!define WEBVIEW2_USER_KEY "Software\Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "LogicLib.nsh"

Name "${PRODUCT}"
OutFile "${OUT}"
InstallDir "$LOCALAPPDATA\Programs\${PRODUCT}"
InstallDirRegKey HKCU "${UNINSTALL_KEY}" "InstallLocation"
BrandingText "${PRODUCT} ${VERSION}"
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "${PRODUCT}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "CompanyName" "${PUBLISHER}"
VIAddVersionKey "FileDescription" "${PRODUCT} installer"
VIAddVersionKey "LegalCopyright" "MIT"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\docs-mcp-app.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${PRODUCT}"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Section "Docs MCP" main
  SectionIn RO
  SetOutPath "$INSTDIR"
  ; A running copy holds its .exe open: NSIS then asks to close it and retry.
  File "/oname=docs-mcp-app.exe" "${APP_EXE}"
  ; The headless service and CLI: `docs-mcp edits approve` from a terminal, `serve --stdio`
  ; for MCP clients that start a command.
  File "/oname=docs-mcp.exe" "${CLI_EXE}"
  ; A build for windows-gnu loads WebView2's loader at start (MSVC's links it in): beside it.
  File "/oname=WebView2Loader.dll" "${WEBVIEW2_LOADER}"
  File "/oname=docs-mcp.ico" "${ICON}"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  CreateShortcut "$SMPROGRAMS\${PRODUCT}.lnk" "$INSTDIR\docs-mcp-app.exe" "" "$INSTDIR\docs-mcp.ico"

  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${PRODUCT}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\docs-mcp.ico"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" $0

  ; The window is a WebView2: Windows 11 and current Windows 10 have its runtime. Said, not
  ; installed: the runtime's installer is a download these machines cannot make.
  ReadRegStr $0 HKLM "${WEBVIEW2_KEY}" "pv"
  ReadRegStr $1 HKCU "${WEBVIEW2_USER_KEY}" "pv"
  ${If} $0 == ""
  ${AndIf} $1 == ""
    DetailPrint "The Microsoft Edge WebView2 runtime was not found: the window needs it (https://developer.microsoft.com/microsoft-edge/webview2/)."
  ${EndIf}
SectionEnd

Section "Uninstall"
  ; The start at login goes with the app; the data directory stays.
  DeleteRegValue HKCU "${RUN_KEY}" "${PRODUCT}"
  DeleteRegValue HKCU "${STARTUP_APPROVED_KEY}" "${PRODUCT}"
  Delete "$SMPROGRAMS\${PRODUCT}.lnk"
  Delete "$INSTDIR\docs-mcp-app.exe"
  Delete "$INSTDIR\docs-mcp.exe"
  Delete "$INSTDIR\WebView2Loader.dll"
  Delete "$INSTDIR\docs-mcp.ico"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
SectionEnd
