"""Heading vocabulary: which article heading feeds which record field (Chinese and English)."""

from __future__ import annotations

import re

# Field names of the parsed article; "other" sections are kept out of every record field.
SYMPTOMS, BACKGROUND, CAUSE, ANALYSIS, FIX, ADVICE, OTHER = (
    "symptoms", "background", "cause", "analysis", "fix", "advice", "other",
)

_VOCABULARY: dict[str, tuple[str, ...]] = {
    BACKGROUND: ("问题背景", "背景", "问题描述", "background", "problem", "problem description", "context", "overview"),
    SYMPTOMS: (
        "错误现象", "错误现象分析", "常见错误表现", "错误表现", "问题现象", "错误信息", "现象",
        "symptom", "symptoms", "error", "error message", "what you see",
    ),
    CAUSE: (
        "根本原因", "根本原因分析", "问题根源", "原因分析", "原因", "问题原因",
        "root cause", "cause", "causes", "why it happens",
    ),
    ANALYSIS: ("技术分析", "技术细节分析", "错误分析", "analysis", "technical analysis", "details"),
    FIX: (
        "解决方案", "解决方法", "修复方案", "解决办法", "临时解决方案",
        "solution", "solutions", "fix", "fixes", "workaround", "workarounds", "resolution", "how to fix",
    ),
    ADVICE: ("最佳实践建议", "技术建议", "最佳实践", "建议", "best practices", "recommendations", "prevention"),
    OTHER: (
        "总结", "结论", "预防措施", "技术原理深入", "验证方法", "参考", "参考资料",
        "summary", "conclusion", "references", "verification", "notes", "see also",
    ),
}
_LOOKUP = {word: field for field, words in _VOCABULARY.items() for word in words}
_TRIM = re.compile(r"^[#\s\d.、:：)）(（-]+|[\s:：]+$")


def field_for_heading(text: str) -> str | None:
    """The field a heading introduces, or None when the text is not a known heading.

    >>> field_for_heading("根本原因"), field_for_heading("## Root cause:"), field_for_heading("hello")
    ('cause', 'cause', None)
    """
    key = _TRIM.sub("", text).strip().lower()
    return _LOOKUP.get(key) if len(key) <= 40 else None
