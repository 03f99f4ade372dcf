"""An interrupt reaches the notebook's code, never the kernel's own machinery.

ipykernel (7.4) lets SIGINT raise ``KeyboardInterrupt`` for the whole time it
handles a request, not only while the cell's code runs. An interrupt that
arrives just after the code has finished (the grader interrupts at a deadline
the code had just met, more often on a loaded machine) is raised inside
ipykernel itself: it logs "KeyboardInterrupt caught in kernel", sends no
reply, and the kernel stops answering. The grader then waits its grace and
kills the kernel, so an honest cell after it scores 0 for a race the student
did not cause (seen in CI: the judge-bounds ``slow_callback`` family).

The guard, run in the kernel before anything else, replaces the SIGINT handler
ipykernel installs around each request with one that raises only when a
frame of a cell's code (a file IPython compiled for a cell, the grader's
silent executions included) is on the stack; otherwise the interrupt came too
late for any code to stop and is dropped. The student's code can undo it: that
only exposes the student's own kernel to the race again.
"""

GUARD_CODE = '''
def __nbg_guard_interrupts__():
    import signal
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    cells = getattr(getattr(shell, "compile", None), "_filename_map", None)
    if kernel is None or not isinstance(cells, dict):
        return

    def on_interrupt(signum, frame):
        while frame is not None:
            if frame.f_code.co_filename in cells:
                raise KeyboardInterrupt
            frame = frame.f_back

    def pre_handler_hook():
        kernel.saved_sigint_handler = signal.signal(signal.SIGINT, on_interrupt)

    kernel.pre_handler_hook = pre_handler_hook
__nbg_guard_interrupts__()
del __nbg_guard_interrupts__
'''


def install_interrupt_guard(executor):
    """Run the guard in ``executor``'s fresh kernel (a silent execution, before any cell)."""
    executor.wait_for_reply(executor.kc.execute(GUARD_CODE, silent=True, store_history=False))
