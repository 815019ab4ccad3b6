// A PowerShell host that keeps what a console would print: the differential suite's stand-in for ConsoleHost.
// Out-Default writes the pipeline's output and its error views through it; `exit N` reaches SetShouldExit.
using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Globalization;
using System.Management.Automation;
using System.Management.Automation.Host;
using System.Management.Automation.Runspaces;
using System.Security;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;

namespace GroundcrewDifferential
{
    public class CaptureRawUI : PSHostRawUserInterface
    {
        public override ConsoleColor BackgroundColor { get; set; }
        public override ConsoleColor ForegroundColor { get; set; }
        public override Size BufferSize { get { return new Size(120, 3000); } set { } }
        public override Coordinates CursorPosition { get; set; }
        public override int CursorSize { get; set; }
        public override Size MaxPhysicalWindowSize { get { return new Size(120, 3000); } }
        public override Size MaxWindowSize { get { return new Size(120, 3000); } }
        public override Coordinates WindowPosition { get; set; }
        public override Size WindowSize { get { return new Size(120, 50); } set { } }
        public override string WindowTitle { get; set; }
        public override bool KeyAvailable { get { return false; } }
        public override void FlushInputBuffer() { }
        public override BufferCell[,] GetBufferContents(Rectangle rectangle) { throw new NotSupportedException("no screen buffer"); }
        public override KeyInfo ReadKey(ReadKeyOptions options) { throw new NotSupportedException("no keyboard"); }
        public override void ScrollBufferContents(Rectangle source, Coordinates destination, Rectangle clip, BufferCell fill) { throw new NotSupportedException("no screen buffer"); }
        public override void SetBufferContents(Coordinates origin, BufferCell[,] contents) { throw new NotSupportedException("no screen buffer"); }
        public override void SetBufferContents(Rectangle rectangle, BufferCell fill) { throw new NotSupportedException("no screen buffer"); }
    }

    public class CaptureUI : PSHostUserInterface
    {
        private readonly CaptureRawUI raw = new CaptureRawUI();
        public readonly StringBuilder Out = new StringBuilder();
        public readonly StringBuilder Err = new StringBuilder();
        public override PSHostRawUserInterface RawUI { get { return raw; } }
        public override string ReadLine() { throw new NotSupportedException("no input"); }
        public override SecureString ReadLineAsSecureString() { throw new NotSupportedException("no input"); }
        // Plain text, as ConsoleHost writes to a redirected stream: $PSStyle's escapes taken out.
        private static readonly Regex Escapes = new Regex("\x1b\\[[0-9;]*m");
        private static string Plain(string value) { return Escapes.Replace(value ?? "", ""); }
        public override void Write(string value) { Out.Append(Plain(value)); }
        public override void Write(ConsoleColor foregroundColor, ConsoleColor backgroundColor, string value) { Out.Append(Plain(value)); }
        public override void WriteLine(string value) { Out.Append(Plain(value)).Append('\n'); }
        public override void WriteErrorLine(string value) { Err.Append(Plain(value)).Append('\n'); }
        public override void WriteDebugLine(string message) { }
        public override void WriteProgress(long sourceId, ProgressRecord record) { }
        public override void WriteVerboseLine(string message) { }
        public override void WriteWarningLine(string message) { Err.Append("WARNING: ").Append(Plain(message)).Append('\n'); }
        public override Dictionary<string, PSObject> Prompt(string caption, string message, Collection<FieldDescription> descriptions) { throw new NotSupportedException("no prompt"); }
        public override PSCredential PromptForCredential(string caption, string message, string userName, string targetName) { throw new NotSupportedException("no prompt"); }
        public override PSCredential PromptForCredential(string caption, string message, string userName, string targetName, PSCredentialTypes allowedCredentialTypes, PSCredentialUIOptions options) { throw new NotSupportedException("no prompt"); }
        public override int PromptForChoice(string caption, string message, Collection<ChoiceDescription> choices, int defaultChoice) { throw new NotSupportedException("no prompt"); }
    }

    public class CaptureHost : PSHost
    {
        private readonly Guid id = Guid.NewGuid();
        public readonly CaptureUI Capture = new CaptureUI();
        public int? ExitCode;
        public override string Name { get { return "GroundcrewDifferential"; } }
        public override Version Version { get { return new Version(1, 0); } }
        public override Guid InstanceId { get { return id; } }
        public override PSHostUserInterface UI { get { return Capture; } }
        public override CultureInfo CurrentCulture { get { return CultureInfo.InvariantCulture; } }
        public override CultureInfo CurrentUICulture { get { return CultureInfo.InvariantCulture; } }
        public override void SetShouldExit(int exitCode) { ExitCode = exitCode; }
        public override void EnterNestedPrompt() { throw new NotSupportedException("no nested prompt"); }
        public override void ExitNestedPrompt() { throw new NotSupportedException("no nested prompt"); }
        public override void NotifyBeginApplication() { }
        public override void NotifyEndApplication() { }
    }

    public static class Deadline
    {
        /// <summary>Invokes the pipeline, stopping it if it runs past the deadline; true when it was stopped.</summary>
        public static bool Invoke(Pipeline pipeline, int milliseconds)
        {
            var stopped = false;
            using (var timer = new Timer(_ => { stopped = true; pipeline.StopAsync(); }, null, milliseconds, Timeout.Infinite))
            {
                try { pipeline.Invoke(); }
                catch (PipelineStoppedException) when (stopped) { }
            }
            return stopped;
        }
    }
}
