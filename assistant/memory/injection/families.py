"""The families of text that instruct an assistant, as patterns over folded text.

Each family is a way injected text tries to steer a model, written as a pattern over
`normalise.fold`'s output (lower-case, disguises removed), in English and Chinese:

* ``role``: chat-template and role markers (``SYSTEM:``, ``<|im_start|>``, ``[INST]``,
  ``### Instruction``, ``"role": "system"``, ``【系统】``);
* ``override``: "ignore / forget the previous instructions" (忽略之前的指令);
* ``address``: words addressed to an AI as a third party ("the AI reading this",
  "note to the model", 读到这里的AI, 致所有AI助手);
* ``memory``: imperatives to write or rewrite the assistant's memory or profile
  (write into memory, 写入记忆, 覆盖用户画像), or to record what "the user" is;
* ``directive``: standing orders to the assistant ("you must now always", "from now on
  you", 你必须记住, 从现在起你);
* ``secrecy``: keeping the user out of it ("don't tell the user", 不用告诉用户, 悄悄地);
* ``authority``: claims to speak for the app ("I'm the developer of this app",
  "developer mode", 我是管理员, 作为你的开发者).

A bare claim of a role ("I'm the admin", 我是开发者) is ``authority_weak``: it counts only
beside an imperative about memory or belief, since people say it of their own jobs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FAMILIES", "WEAK_COMPANION", "Family"]


@dataclass(frozen=True, slots=True)
class Family:
    """A named way of instructing an assistant; ``strong`` ones suffice alone."""

    name: str
    pattern: re.Pattern[str]
    strong: bool = True


def _any(*parts: str) -> str:
    return "(?:" + "|".join(parts) + ")"


# -- English building blocks --------------------------------------------------------------
_AI = _any(
    r"ai", r"a\.i\.", r"assistants?", r"llms?", r"(?:large )?language models?", r"chat ?bots?",
    r"bots?", r"agents?", r"models?", r"gpts?", r"hippo", r"ai (?:assistants?|models?|agents?)",
)  # fmt: skip
_READING = _any(
    "reading", "processing", "summari[sz]ing", "parsing", "seeing", "viewing", "analy[sz]ing",
    "scanning", "handling", "indexing", "crawling", "ingesting", "receiving",
)  # fmt: skip
_WRITE = _any(
    "write", "save", "store", "add", "put", "insert", "record", "append", "commit", "persist",
    "log", "note", "update", "overwrite", "set", "change", "replace", "modify", "edit", "patch",
    "delete", "erase", "wipe", "remove", "memori[sz]e", "remember", "inject", "plant", "keep",
)  # fmt: skip
_MEMORY = _any(
    r"(?:core |long[- ]?term |permanent |persistent |working |your |its |the )*memor(?:y|ies)",
    r"(?:the |your )?(?:human|persona|core) block", r"persona(?: notes)?",
    r"(?:the )?user'?s? (?:profile|record|file|block|notes)", r"(?:your |the )?profile",
    r"(?:your |the )?knowledge base", r"(?:your |the )?system prompt", r"(?:your )?notes",
)  # fmt: skip
_ROLE_WORD = _any("system", "developer", "admin(?:istrator)?", "root", "operator", "sysadmin")
_STAFF = _any(
    "developers?", "devs?", "admin(?:istrator)?s?", "sysadmins?", "creators?", "makers?",
    "owners?", "operators?", "maintainers?", "programmers?", "engineers?", "vendors?",
    "support team", "security team", "it department",
)  # fmt: skip
_APP = _any(
    "app", "application", "assistant", "system", "ai", "model", "bot", "chatbot", "program",
    "software", "tool", "service", "hippo", "you",
)  # fmt: skip
_THE_USER = _any(
    r"(?:the )?user", "the human", "the owner", "the visitor", "the reader",
    r"the person you(?:'re| are) (?:helping|talking to|assisting|serving)",
)  # fmt: skip
_END = r"[^.!?。！？\n]"

# -- Chinese building blocks --------------------------------------------------------------
_ZH_AI = _any(
    r"(?:ai|人工智能|llm|gpt)?(?:助手|助理|大?模型|语言模型|机器人|智能体)",
    "ai",
    "人工智能",
    "llm",
    "gpt",
)
_ZH_MEMORY = _any(
    "核心记忆", "长期记忆", "记忆", "档案", "用户画像", "画像", "人设", "系统提示", "知识库",
    "备忘录?", "用户信息", "个人资料", "资料库", "记录在案",
)  # fmt: skip
_ZH_WRITE = _any(
    "记住", "记下", "记录", "牢记", "写入", "写进", "存入", "存进", "存到", "保存", "加入", "添加",
    "放进", "放入", "更新", "覆盖", "修改", "改写", "替换", "删除", "清空", "设定", "设置", "录入",
    "植入", "注入", "写成", "改成", "改为", "记在", "记入", "写明", "写到",
)  # fmt: skip
_ZH_RULES = _any(
    "指令", "指示", "提示词?", "规则", "设定", "要求", "约束", "限制", "命令", "说明", "规定",
    "政策", "设置", "安排",
)  # fmt: skip
_ZH_STAFF = _any(
    "开发者", "开发人员", "管理员", "作者", "创建者", "创造者", "维护者", "工程师", "程序员",
    "运营", "负责人", "所有者", "运维", "客服",
)  # fmt: skip
_ZH_QUALIFIER = _any(
    "这个", "本", "该", "你的", "你们的", "此", "hippo的?", "系统的?", "官方的?",
)  # fmt: skip
_ZH_END = r"[^。！？\n]"

FAMILIES: tuple[Family, ...] = (
    Family(
        "role",
        re.compile(
            _any(
                r"<\|\s*[a-z_]{2,30}\s*\|>",
                r"\[/?inst\]",
                r"<</?sys>>",
                r"\[/?(?:system|sys)\]",
                r"^\s*[#>*\-\[(<【]*\s*" + _ROLE_WORD + r"(?: (?:message|prompt|note|notice|"
                r"instruction|override|update|directive|command)s?)?\s*[\]>)】]*\s*[:：]",
                r"\b(?:system|developer|admin) (?:prompt|message|note|notice|instruction|"
                r"override|directive|command)s?\s*[:：]",
                r"###\s*(?:instruction|system|response|input)s?\b",
                r"\"role\"\s*:\s*\"(?:system|developer)\"",
                r"\b(?:llm|ai|assistant|model|system|admin|developer|operator)\s+"
                r"(?:instructions?|directives?|commands?|overrides?|orders?)\s*[:：\])-]",
                r"\b(?:assistant|ai|system|model|llm) (?:directive|override)s?\b",
                r"^\s*[\[【(（]?\s*(?:系统|管理员|开发者)(?:消息|通知|指令|提示|公告)?\s*[\]】)）]?\s*[:：]",
                r"[\[【](?:系统|管理员|开发者)(?:消息|通知|指令|提示)?[\]】]",
                r"(?:系统|管理员|开发者)(?:指令|命令|消息)\s*[:：]",
            ),
            re.MULTILINE,
        ),
    ),
    Family(
        "override",
        re.compile(
            _any(
                r"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon|discard|"
                r"overrule|cancel|void|erase|neglect)\b(?: [\w'-]+){0,4}? (?:instructions?|"
                r"prompts?|rules?|guidelines?|directions?|directives?|constraints?|"
                r"polic(?:y|ies)|programming|guardrails?|safeguards?|settings|orders?|"
                r"commands?|training)\b",
                r"\b(?:new|updated|revised|real|true|secret|hidden|special|override)\s+"
                r"(?:instructions?|directives?|orders|system prompt)\b",
                r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|不理会|别管|抛开|放弃|跳过|覆盖|绕过|"
                r"无需遵守|不再遵守|不用遵守|停止遵守|取消)(?!了)" + _ZH_END + "{0,12}" + _ZH_RULES,
                r"新的?(?:指令|指示|规则)\s*[:：]",
            )
        ),
    ),
    Family(
        "address",
        re.compile(
            _any(
                _AI + r" (?:that is |who is |which is )?" + _READING + r" (?:this|these|the)\b",
                r"\b(?:if|when|since) you(?:'re| are) (?:an? |the )?" + _AI + r"\b",
                r"\b(?:note|message|notes|instructions?|attention|reminder|notice|memo|psa)\s+"
                r"(?:to|for)\s+(?:the |any |all |every |each )?" + _AI + r"\b",
                r"\b(?:attention|dear|hey|hello|hi|to|calling)\s+(?:all |any |every )?"
                r"(?:ai|a\.i\.|llms?|language models?|models|ai (?:agents?|assistants?|models?))"
                r"\b",
                r"\bdear (?:ai|a\.i\.) ?(?:assistant|model|agent)?\b",
                r"\bhey,? (?:model|llm|ai|bot)\b",
                r"^\s*(?:ai|llm|ai assistant|ai agents?)\s*[:：]",
                r"(?:读到|看到|阅读|读取|处理|解析|浏览|收到|分析|总结|扫描)(?:这|此|本)"
                r"(?:里|段|条|篇|封|份|个|些|页|文件|消息|内容|文字|文档)?"
                + _ZH_END
                + "{0,8}"
                + _ZH_AI,
                r"(?:致|给|写给|告)(?:所有|各位|每个|任何|每一个)?的?"
                + _ZH_AI
                + r"(?:的)?(?:说明|指示|指令|消息|信|提示|留言|通知)?\s*[:：，,]",
                r"如果你是(?:一个|一名|个)?" + _ZH_AI,
                _ZH_AI + r"(?:请注意|注意|听着|听好|须知)",
                r"亲爱的" + _ZH_AI,
                r"^\s*" + _ZH_AI + r"\s*[:：]",
            ),
            re.MULTILINE,
        ),
    ),
    Family(
        "memory",
        re.compile(
            _any(
                r"\b"
                + _WRITE
                + r"\b"
                + _END
                + r"{0,60}?\b(?:in|into|to|onto|in to)\s+"
                + _MEMORY
                + r"\b",
                r"\b" + _WRITE + r"\s+" + _MEMORY + r"\b",
                r"\b(?:memory|profile|record|block|persona) (?:update|patch|override|change|"
                r"edit|injection)s?\b",
                r"\b(?:remember|memori[sz]e|note|record|store|save|log|keep in mind|be aware|"
                r"write|add|update|set|persist)\b" + _END + r"{0,25}?\bthat\s+" + _THE_USER + r"\b",
                r"\b(?:update|set|change|record|store|save|write|add|overwrite)\b"
                + _END
                + r"{0,15}\b(?:the )?user'?s \w+",
                r"\bcommit (?:this |it |that )?to (?:long[- ]term )?memory\b",
                _ZH_WRITE + _ZH_END + "{0,20}" + _ZH_MEMORY,
                _ZH_MEMORY + r"(?:中|里|内|上)?(?:记下|记住|写|存|更新|覆盖|修改|添加)",
                r"(?:把|将)[“\"「『']?用户" + _ZH_END + "{0,30}" + _ZH_WRITE,
                r"(?:记住|记下|记录|牢记|写入|保存|存储|写明)" + _ZH_END + "{0,6}用户",
            )
        ),
    ),
    Family(
        "directive",
        re.compile(
            _any(
                r"\byou\s+(?:must|shall|have to|are required to|are to|need to|should now|"
                r"will now|are now|will always|must always|must never|will never)\s+(?:now\s+|"
                r"always\s+|never\s+|from now on\s+)?(?:remember|forget|store|save|record|"
                r"update|treat|believe|consider|call|address|obey|follow|ignore|act|respond|"
                r"reply|answer|say|tell|write|add|refer|use|recommend|reveal|assume|accept|keep|"
                r"comply|execute|trust|prioriti[sz]e|pretend|role-?play)\b",
                r"\b(?:from now on|from this point(?: on(?:wards?)?)?|henceforth|going forward)\b"
                + _END
                + r"{0,12}\b(?:you|always|never|remember|respond|reply|answer|call|"
                r"address|treat|refer|believe)\b",
                r"\b(?:always|never)\s+(?:tell|inform|answer|reply to|respond to)\s+(?:the\s+)?"
                r"user\b",
                r"\bpretend\s+(?:to\s+be|you\s+are)\b",
                r"\b(?:reveal|print|output|repeat|dump|leak|show me|tell me)\s+(?:your|the)\s+"
                r"(?:system prompt|instructions|hidden prompt|initial prompt|core memory)\b",
                r"\bthe user (?:wants|asked|told|has asked|instructed|requested|has granted|"
                r"granted|authori[sz]ed|has authori[sz]ed|allows|permits|gave) you\b",
                r"你(?:现在)?(?:必须|务必|一定要|只能|需要|得|要|应该|应当)(?:立即|立刻|马上|一直|永远|始终)?"
                r"(?:记住|记下|牢记|相信|认为|把|将|更新|修改|写入|保存|遵守|服从|执行|称呼|叫|回答|"
                r"回复|告诉|忽略|忘记|假装|扮演)",
                r"从现在(?:开始|起)" + _ZH_END + "{0,6}(?:你|请|要|一律|总是|始终|必须|都要|把|将)",
                r"假装你是|扮演一个",
                r"(?:总是|始终|永远|一律)" + _ZH_END + "{0,6}(?:告诉用户|回答用户|回复用户|推荐)",
                r"(?:泄露|透露|输出|打印|告诉我)(?:你的)?(?:系统提示|指令|提示词|核心记忆)",
            )
        ),
    ),
    Family(
        "secrecy",
        re.compile(
            _any(
                r"\b(?:do\s*n[o']?t|never|no need to|not to|must\s*n[o']?t|should\s*n[o']?t|"
                r"should not|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|"
                r"alert(?:ing)?|mention(?:ing)?|warn(?:ing)?|ask(?:ing)?|confirm(?:ing)? with|"
                r"let(?:ting)?|show(?:ing)?)\s+(?:this |it |that )?(?:to |with )?(?:the |your )?"
                r"(?:user|human|owner)\b",
                r"\b(?:keep|hide)\s+(?:this|it|that)\s+(?:secret |hidden |confidential )?from\s+"
                r"(?:the\s+)?(?:user|human)\b",
                r"\b(?:the\s+)?user\s+(?:must|should|need|needs)\s*(?:not|n't)\s+(?:know|see|"
                r"find out|be told|be informed)\b",
                r"\b(?:silently|quietly|secretly|covertly|discreetly|stealthily)\s+"
                + _WRITE
                + r"\b",
                r"(?:不要|别|不用|无需|无须|不必|不得|切勿|禁止|不能|勿)(?:告诉|告知|通知|提醒|让|向|跟|和|对)"
                + _ZH_END
                + "{0,4}用户",
                r"(?:瞒着|背着)用户",
                r"(?:悄悄|偷偷|秘密|默默|暗中)地?" + _ZH_END + "{0,4}" + _ZH_WRITE,
                r"用户(?:不需要|无需|不必|不能|不应|不该)(?:知道|知情|了解)",
            )
        ),
    ),
    Family(
        "authority",
        re.compile(
            _any(
                r"\b(?:i\s*am|i'm|im|this is|it's|speaking as|as|we are|we're)\s+"
                r"(?:the|your|an?)\s+"
                r"(?:lead |chief |head |system |site |official )?" + _STAFF + r"\s+(?:of|for|"
                r"behind|at|from)\s+(?:this|the|your)\s+" + _APP + r"\b",
                r"\b(?:i\s*am|i'm|im|this is|speaking as|as)\s+(?:your|hippo's)\s+"
                r"(?:lead |chief |head |system |official )?" + _STAFF + r"\b",
                r"\b(?:developer|admin|administrator|maintenance|debug|god|jailbreak|"
                r"unrestricted|sudo|root|dan)\s+mode\b",
                r"\b(?:message|notice|note|reminder|instructions?|orders?|update|memo)\s+from\s+"
                r"(?:the\s+|your\s+)?(?:developers?|admins?|administrators?|sysadmin|system|"
                r"operators?|creators?|security team|hippo team|openai|anthropic)\b",
                r"\b(?:authori[sz]ed|approved|verified|signed)\s+by\s+(?:the\s+|your\s+)?"
                r"(?:developers?|admin|administrator|system|operator)\b",
                r"\bas the (?:system )?(?:developer|admin|administrator|operator|creator)\s*[,:]",
                r"我是"
                + _ZH_QUALIFIER
                + r"(?:应用|程序|系统|软件|助手|app|ai|模型|平台|产品|服务)?的?"
                + _ZH_STAFF,
                r"作为"
                + _ZH_QUALIFIER
                + r"(?:应用|程序|系统|软件|助手|app|ai|模型)?的?"
                + _ZH_STAFF,
                r"(?:开发者|管理员|调试|上帝|越狱|维护|超级用户|开发)模式",
                r"来自(?:系统|管理员|开发者|官方|开发团队)的(?:通知|消息|指令|命令|要求)",
            )
        ),
    ),
    Family(
        "authority_weak",
        re.compile(
            _any(
                r"\b(?:i\s*am|i'm|im|this is)\s+the\s+(?:system )?" + _STAFF + r"\b",
                r"我是(?:" + _ZH_STAFF + r")",
                r"作为(?:" + _ZH_STAFF + r")",
            )
        ),
        strong=False,
    ),
)

# What makes a weak claim of authority count: an imperative about memory or belief.
WEAK_COMPANION = re.compile(
    _any(
        r"\b(?:remember|memori[sz]e|update|record|store|save|write|change|set|believe|trust|"
        r"note|add|delete)\b",
        "记住|记下|更新|修改|覆盖|写入|保存|记录|相信|删除|添加|设置|设为",
    )
)
