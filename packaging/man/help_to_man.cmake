# Writes scoria(1) from the binary's own help text, so that the page and
# `--help` cannot disagree: the top-level usage, then each subcommand's
# `--help` as a section of its own.
#   cmake -DSCORIA=<binary> -DOUT=<scoria.1> -DDATE=<YYYY-MM-DD> -P help_to_man.cmake
function(help_of out)
  execute_process(COMMAND ${SCORIA} ${ARGN} OUTPUT_VARIABLE text ERROR_VARIABLE text
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${SCORIA} ${ARGN} failed (${rc}):\n${text}")
  endif()
  # roff: a backslash is \e; a line may not start with a control character.
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

help_of(version version)
string(STRIP "${version}" version)
string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" number "${version}")
help_of(usage --help)
set(page ".TH SCORIA 1 \"${DATE}\" \"scoria ${number}\" \"User Commands\"
.SH NAME
scoria \\- batch scheduler for gangs of pods, queues with fair shares, priorities and preemption
.SH SYNOPSIS
.B scoria
.I command
[\\fIoptions\\fR]
.SH DESCRIPTION
Scoria runs Volcano's scheduling cycle with every action and policy plugin
loaded from its own shared object through a stable C ABI.
.PP
.nf
${usage}.fi
")
foreach(command simulate plugins check-config serve ctl)
  help_of(text ${command} --help)
  string(TOUPPER "${command}" title)
  string(APPEND page ".SH \"SCORIA ${title}\"\n.nf\n${text}.fi\n")
endforeach()
string(APPEND page ".SH FILES
.TP
.I /etc/scoria/scheduler.toml
the scheduler config the systemd unit runs with
.TP
.I /usr/lib/scoria/plugins
the built-in actions and plugins
.TP
.I /usr/local/lib/scoria/plugins
third-party plugins, searched after the built-in directory
.SH VERSION
${version}
.SH \"SEE ALSO\"
.BR systemctl (1),
.BR kubectl (1);
/usr/share/doc/scoria/README.md
")
file(WRITE ${OUT} "${page}")
