"""Edit cells of a workbook in LibreOffice (headless) and save it in its own format,
as a planner editing an exported workbook does.

    python3 libreoffice_edit.py FILE SHEET CELL VALUE [CELL VALUE ...]

FILE is .xlsx or .ods; each CELL is A1-style; its VALUE is written as a number when it
reads as one, else as text. LibreOffice runs with a profile of its own (a temporary folder) and
is stopped before this returns.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

import uno
from com.sun.star.beans import PropertyValue


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def main():
    path, sheet_name = sys.argv[1:3]
    edits = list(zip(sys.argv[3::2], sys.argv[4::2]))
    if not edits or len(sys.argv) % 2 != 1:
        raise SystemExit("usage: libreoffice_edit.py FILE SHEET CELL VALUE [CELL VALUE ...]")
    path = os.path.abspath(path)
    profile = tempfile.mkdtemp(prefix="masterctl-lo-")
    pipe = "masterctl-lo-%d" % os.getpid()
    office = subprocess.Popen(
        [
            "soffice",
            "--headless",
            "--invisible",
            "--norestore",
            "--nologo",
            "--nodefault",
            "-env:UserInstallation=" + uno.systemPathToFileUrl(profile),
            "--accept=pipe,name=%s;urp;" % pipe,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext(
            "com.sun.star.bridge.UnoUrlResolver", local
        )
        context = None
        deadline = time.time() + 120
        while context is None:
            try:
                context = resolver.resolve(
                    "uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe
                )
            except Exception:
                if time.time() > deadline or office.poll() is not None:
                    raise SystemExit("LibreOffice did not start")
                time.sleep(0.2)
        desktop = context.ServiceManager.createInstanceWithContext(
            "com.sun.star.frame.Desktop", context
        )
        url = uno.systemPathToFileUrl(path)
        document = desktop.loadComponentFromURL(url, "_blank", 0, (prop("Hidden", True),))
        if document is None:
            raise SystemExit("LibreOffice could not open " + path)
        sheet = document.Sheets.getByName(sheet_name)
        for cell_name, value in edits:
            cell = sheet.getCellRangeByName(cell_name)
            try:
                cell.setValue(float(value))
            except ValueError:
                cell.setString(value)
        kind = "Calc MS Excel 2007 XML" if path.lower().endswith(".xlsx") else "calc8"
        document.storeToURL(url, (prop("FilterName", kind), prop("Overwrite", True)))
        document.close(True)
        try:
            desktop.terminate()
        except Exception:
            pass  # the bridge goes down with the office
        office.wait(timeout=60)
    finally:
        if office.poll() is None:
            office.kill()
            office.wait(timeout=60)
        # The profile is this run's alone: nothing of it is left behind.
        shutil.rmtree(profile, ignore_errors=True)


main()
